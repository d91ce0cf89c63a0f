package dev.omnigraph.storage.manifest;

import java.util.Optional;

/** What a publish expects the branch's graph head to be. */
public sealed interface ExpectedHead {
    /** Exactly this head; {@code Optional.empty()} means "no commit on this branch yet". Never re-parented. */
    record Exact(Optional<String> commitId) implements ExpectedHead {
    }

    /** Whatever the head is when the publish lands (writers not enrolled in exact tokens); re-read on contention. */
    record Any() implements ExpectedHead {
    }

    static ExpectedHead exactly(String commitId) {
        return new Exact(Optional.of(commitId));
    }

    static ExpectedHead absent() {
        return new Exact(Optional.empty());
    }

    static ExpectedHead any() {
        return new Any();
    }
}
