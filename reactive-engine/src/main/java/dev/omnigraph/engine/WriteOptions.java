package dev.omnigraph.engine;

import java.util.Optional;

/**
 * Options of one mutation: the actor recorded on the commit, an optional expected graph commit, and an optional
 * idempotency key (a retry with the same key and request returns the first attempt's outcome without writing).
 */
public record WriteOptions(Optional<String> actorId, Optional<String> ifGraphCommit, Optional<String> idempotencyKey) {
    public static final WriteOptions DEFAULT = new WriteOptions(Optional.empty(), Optional.empty(), Optional.empty());

    /** Options without an idempotency key. */
    public WriteOptions(Optional<String> actorId, Optional<String> ifGraphCommit) {
        this(actorId, ifGraphCommit, Optional.empty());
    }

    /** The same options, recording {@code actor} as the commit's actor. */
    public WriteOptions actor(String actor) {
        return new WriteOptions(Optional.of(actor), ifGraphCommit, idempotencyKey);
    }

    /** The same options, failing with {@code PreconditionFailed} unless the branch head is {@code commitId}. */
    public WriteOptions ifGraphCommit(String commitId) {
        return new WriteOptions(actorId, Optional.of(commitId), idempotencyKey);
    }

    /** Makes the write idempotent under {@code key} (1–255 printable ASCII characters, checked when it runs). */
    public WriteOptions idempotencyKey(String key) {
        return new WriteOptions(actorId, ifGraphCommit, Optional.of(key));
    }
}
