package dev.omnigraph.engine;

import java.util.Optional;

/** Options of one mutation: the actor recorded on the commit, and an optional expected graph commit. */
public record WriteOptions(Optional<String> actorId, Optional<String> ifGraphCommit) {
    public static final WriteOptions DEFAULT = new WriteOptions(Optional.empty(), Optional.empty());

    public WriteOptions actor(String actor) {
        return new WriteOptions(Optional.of(actor), ifGraphCommit);
    }

    public WriteOptions ifGraphCommit(String commitId) {
        return new WriteOptions(actorId, Optional.of(commitId));
    }
}
