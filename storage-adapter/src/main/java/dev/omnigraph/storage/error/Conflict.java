package dev.omnigraph.storage.error;

/** A state conflict that is neither a key nor a read-set conflict: e.g. a live HEAD ahead of its pin with no sidecar, a branch that exists. */
public final class Conflict extends OmnigraphException {
    public Conflict(String message) {
        super(ErrorCode.CONFLICT, message, null);
    }

    public Conflict(String message, Throwable cause) {
        super(ErrorCode.CONFLICT, message, cause);
    }
}
