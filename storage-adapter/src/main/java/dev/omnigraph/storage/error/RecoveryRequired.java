package dev.omnigraph.storage.error;

/** A write stopped after its first physical effect, or an unresolved sidecar blocks this one; recovery must run. */
public final class RecoveryRequired extends OmnigraphException {
    private final String operationId;

    public RecoveryRequired(String operationId, String message, Throwable cause) {
        super(ErrorCode.RECOVERY_REQUIRED, message + " (operation " + operationId + "; reopen the graph read-write or run `omnigraph repair`)", cause);
        this.operationId = operationId;
    }

    public String operationId() { return operationId; }
}
