package dev.omnigraph.storage.error;

/**
 * Root of every error the engine reports. Each subclass carries a stable {@link ErrorCode} and the
 * structured facts a caller needs to act (position, type/property/id, expected/actual, operation id).
 * It lives in the bottom module so that storage, recovery, engine and edge share one hierarchy.
 */
public abstract sealed class OmnigraphException extends RuntimeException
        permits ParseError, ValidationError, BadRequest, NotFound, KeyConflict, ReadSetChanged,
                ManifestConflict, Conflict, CommitConflict, PreconditionFailed, ResourceLimitExceeded, UnsupportedStamp,
                StorageFault, StorageOverloaded, RecoveryRequired, QueryTimeout,
                IdempotencyKeyReused, ChangeDiffRefused, ChangeFeedGap, MergeConflicts, LeaseLost, BlobRangeNotSatisfiable,
                Forbidden {

    private final ErrorCode code;

    protected OmnigraphException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public final ErrorCode code() {
        return code;
    }
}
