package dev.omnigraph.engine;

import dev.omnigraph.storage.manifest.GraphBranches;

/** What a read binds to: the current head of a branch, or one commit (time travel). */
public sealed interface ReadTarget {
    /** The head of branch {@code name} when the read resolves it. */
    record Branch(String name) implements ReadTarget {
    }

    /** One graph commit by id, on whichever branch it was made. */
    record Commit(String commitId) implements ReadTarget {
    }

    /** The head of {@code main}. */
    static ReadTarget main() {
        return new Branch(GraphBranches.MAIN);
    }

    /** The head of branch {@code name}. */
    static ReadTarget branch(String name) {
        return new Branch(name);
    }

    /** Commit {@code commitId} (time travel). */
    static ReadTarget commit(String commitId) {
        return new Commit(commitId);
    }
}
