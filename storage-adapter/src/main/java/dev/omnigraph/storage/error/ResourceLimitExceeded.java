package dev.omnigraph.storage.error;

/** Input beyond a documented limit, refused before any effect. */
public final class ResourceLimitExceeded extends OmnigraphException {
    private final String limit;
    private final long allowed;
    private final long actual;

    public ResourceLimitExceeded(String limit, long allowed, long actual, String advice) {
        super(ErrorCode.RESOURCE_LIMIT, limit + " is " + actual + ", above the limit of " + allowed + "; " + advice, null);
        this.limit = limit;
        this.allowed = allowed;
        this.actual = actual;
    }

    public String limit() { return limit; }
    public long allowed() { return allowed; }
    public long actual() { return actual; }
}
