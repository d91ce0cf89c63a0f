package dev.omnigraph.engine.lex;

/**
 * A lexical error at a 1-based source position. Raised by {@link SourceCursor} (and by the lexers built on it);
 * each lexer maps it to the error its language reports, so it never escapes a lexer.
 */
public final class LexError extends RuntimeException {
    private final int line;
    private final int column;

    public LexError(int line, int column, String message) {
        super(message, null, false, false);
        this.line = line;
        this.column = column;
    }

    public int line() {
        return line;
    }

    public int column() {
        return column;
    }
}
