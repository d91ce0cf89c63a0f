package dev.omnigraph.storage.error;

import java.util.Optional;

/**
 * An {@code Idempotency-Key} came back with a different request than the one it was first used for (within the
 * key's window). Nothing was written; the client must pick a new key for a new request.
 */
public final class IdempotencyKeyReused extends OmnigraphException {
    private final String key;
    private final Optional<String> graphCommitId;

    /** @param graphCommitId the commit the key is recorded with; empty while the first request is still running */
    public IdempotencyKeyReused(String key, Optional<String> graphCommitId) {
        super(ErrorCode.IDEMPOTENCY_KEY_REUSED, "idempotency key '" + key + "' was already used for a different request"
                + graphCommitId.map(id -> " (recorded with commit " + id + ")").orElse(" (still running)")
                + "; a retry must repeat the same request exactly, a new request needs a new key", null);
        this.key = key;
        this.graphCommitId = graphCommitId;
    }

    public String key() {
        return key;
    }

    public Optional<String> graphCommitId() {
        return graphCommitId;
    }
}
