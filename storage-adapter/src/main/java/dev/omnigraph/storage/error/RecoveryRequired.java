package dev.omnigraph.storage.error;

/** A write stopped after its first physical effect, or an unresolved sidecar blocks this one; recovery must run. */
public final class RecoveryRequired extends OmnigraphException {
    /**
     * What resolves a pending sidecar: a read-write open runs the full recovery sweep. Not {@code repair}, which
     * refuses while a sidecar is pending.
     */
    public static final String HOW_TO_RESOLVE = "do not retry yet: restart the server, or if no server has the graph"
            + " open run `omnigraph recovery run <root>` (a read-write open rolls the write forward or back)";

    private final String operationId;

    public RecoveryRequired(String operationId, String message, Throwable cause) {
        super(ErrorCode.RECOVERY_REQUIRED, message + " (operation " + operationId + "; " + HOW_TO_RESOLVE + ")", cause);
        this.operationId = operationId;
    }

    public String operationId() { return operationId; }
}
