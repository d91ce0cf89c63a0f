package dev.omnigraph.storage.error;

/** A state conflict that is neither a key nor a read-set conflict: e.g. a live HEAD ahead of its pin with no sidecar, a branch that exists. */
public final class Conflict extends OmnigraphException {
    /** What resolves a table HEAD ahead of its pin that no sidecar covers (stop a server on the graph first). */
    public static final String UNCOVERED_DRIFT = "run `omnigraph repair <root>` to classify it (compaction-only drift "
            + "is published by `repair --confirm`, any other drift only by `repair --force --confirm`)";

    public Conflict(String message) {
        super(ErrorCode.CONFLICT, message, null);
    }

    public Conflict(String message, Throwable cause) {
        super(ErrorCode.CONFLICT, message, cause);
    }
}
