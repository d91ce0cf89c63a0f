package dev.omnigraph.storage.error;

/** The state a write was planned against moved before any effect; {@code what} names the moved read (e.g. graph_head:main). */
public final class ReadSetChanged extends OmnigraphException {
    private final String what;
    private final String expected;
    private final String actual;

    public ReadSetChanged(String what, String expected, String actual) {
        super(ErrorCode.READ_SET_CONFLICT, "read set changed: " + what + " was " + expected + " when planned, is now "
                + actual + "; nothing was written, retry the request", null);
        this.what = what;
        this.expected = expected;
        this.actual = actual;
    }

    public String what() { return what; }
    public String expected() { return expected; }
    public String actual() { return actual; }
}
