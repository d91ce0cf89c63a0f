package dev.omnigraph.storage.error;

/** A manifest publish whose expectation (graph head, branch identity, table pin, stamp) no longer holds. Nothing was published. */
public final class ManifestConflict extends OmnigraphException {
    private final String what;
    private final String expected;
    private final String actual;

    public ManifestConflict(String what, String expected, String actual) {
        super(ErrorCode.MANIFEST_CONFLICT, "manifest conflict on " + what + ": expected " + expected + ", found " + actual, null);
        this.what = what;
        this.expected = expected;
        this.actual = actual;
    }

    public String what() { return what; }
    public String expected() { return expected; }
    public String actual() { return actual; }
}
