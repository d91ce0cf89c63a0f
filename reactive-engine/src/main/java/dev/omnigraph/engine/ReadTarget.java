package dev.omnigraph.engine;

import dev.omnigraph.storage.manifest.GraphBranches;

/** What a read binds to: the current head of a branch, or one commit (time travel). */
public sealed interface ReadTarget {
    record Branch(String name) implements ReadTarget {
    }

    record Commit(String commitId) implements ReadTarget {
    }

    static ReadTarget main() {
        return new Branch(GraphBranches.MAIN);
    }

    static ReadTarget branch(String name) {
        return new Branch(name);
    }

    static ReadTarget commit(String commitId) {
        return new Commit(commitId);
    }
}
