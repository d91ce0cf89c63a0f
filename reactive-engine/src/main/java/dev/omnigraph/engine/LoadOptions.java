package dev.omnigraph.engine;

import java.util.Optional;
import java.util.Set;

/**
 * Options of one load: types an overwrite empties even without records, the actor recorded on the commit, an
 * optional expected graph commit (the load fails with {@code precondition_failure} if the branch moved), and an
 * optional idempotency key (a retry with the same key and input returns the first load's outcome without writing).
 */
public record LoadOptions(Set<String> overwriteTypes, Optional<String> actorId, Optional<String> ifGraphCommit,
                          Optional<String> idempotencyKey) {
    public static final LoadOptions DEFAULT = new LoadOptions(Set.of(), Optional.empty(), Optional.empty(), Optional.empty());

    public LoadOptions {
        overwriteTypes = Set.copyOf(overwriteTypes);
    }

    /** Options without an idempotency key. */
    public LoadOptions(Set<String> overwriteTypes, Optional<String> actorId, Optional<String> ifGraphCommit) {
        this(overwriteTypes, actorId, ifGraphCommit, Optional.empty());
    }

    /** The same options, recording {@code actor} as the commit's actor. */
    public LoadOptions actor(String actor) {
        return new LoadOptions(overwriteTypes, Optional.of(actor), ifGraphCommit, idempotencyKey);
    }

    /** The same options, failing with {@code PreconditionFailed} unless the branch head is {@code commitId}. */
    public LoadOptions ifGraphCommit(String commitId) {
        return new LoadOptions(overwriteTypes, actorId, Optional.of(commitId), idempotencyKey);
    }

    /** The same options, with {@code types} an {@code OVERWRITE} load empties even when no record names them. */
    public LoadOptions emptying(Set<String> types) {
        return new LoadOptions(types, actorId, ifGraphCommit, idempotencyKey);
    }

    /** Makes the load idempotent under {@code key} (1–255 printable ASCII characters, checked when it runs). */
    public LoadOptions idempotencyKey(String key) {
        return new LoadOptions(overwriteTypes, actorId, ifGraphCommit, Optional.of(key));
    }
}
