package dev.omnigraph.storage.error;

/** Malformed `.pg` / `.gq` / NDJSON input. Line and column are 1-based; {@code subject} names the declaration, query or field. */
public final class ParseError extends OmnigraphException {
    private final String source;
    private final int line;
    private final int column;
    private final String subject;

    public ParseError(String source, int line, int column, String subject, String message) {
        super(ErrorCode.PARSE_ERROR, format(source, line, column, subject, message), null);
        this.source = source;
        this.line = line;
        this.column = column;
        this.subject = subject;
    }

    private static String format(String source, int line, int column, String subject, String message) {
        StringBuilder text = new StringBuilder();
        if (source != null) text.append(source).append(':');
        text.append(line).append(':').append(column).append(": ");
        if (subject != null && !subject.isEmpty()) text.append('[').append(subject).append("] ");
        return text.append(message).toString();
    }

    /** What kind of input failed: "schema", "query", "ndjson", or a file name. */
    public String sourceName() { return source; }
    public int line() { return line; }
    public int column() { return column; }
    /** The offending declaration / query / field, or empty when the failure precedes any name. */
    public String subject() { return subject; }
}
