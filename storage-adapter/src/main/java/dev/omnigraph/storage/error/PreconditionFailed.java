package dev.omnigraph.storage.error;

/** A caller-supplied precondition (e.g. If-Graph-Commit) did not hold. */
public final class PreconditionFailed extends OmnigraphException {
    private final String expected;
    private final String actual;

    public PreconditionFailed(String expected, String actual) {
        super(ErrorCode.PRECONDITION_FAILURE, "precondition failed: expected graph commit " + expected + ", branch is at " + actual, null);
        this.expected = expected;
        this.actual = actual;
    }

    public String expected() { return expected; }
    public String actual() { return actual; }
}
