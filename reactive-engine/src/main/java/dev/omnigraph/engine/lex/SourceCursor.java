package dev.omnigraph.engine.lex;

import dev.omnigraph.storage.ValidText;
import dev.omnigraph.storage.error.ResourceLimitExceeded;

/**
 * The lexical rules shared by {@code .pg} and {@code .gq} (languages reference §1): a cursor over the source
 * text that tracks 1-based line/column positions (a column is a code point, so a surrogate pair is one column),
 * skips trivia (whitespace, {@code //} line comments and non-nesting {@code /* *}{@code /} block comments),
 * scans the token forms both languages share (words, numbers, string literals, symbols; see {@link #next}) and
 * classifies characters. Errors are raised as {@link LexError}; each language's lexer maps them to its own
 * error and handles what is particular to it (enum values in {@code .pg}, {@code $variables} in {@code .gq}).
 * Text that is not valid Unicode ({@link ValidText}: a NUL or an unpaired surrogate) is a lexical error where
 * the cursor reaches it, wherever it stands (in a literal, a comment or between tokens).
 * This package must not depend on {@code schema} or {@code query}.
 */
public final class SourceCursor {
    /** A class of characters, e.g. {@link SourceCursor#isWordPart}. */
    @FunctionalInterface
    public interface CharClass {
        boolean test(char c);
    }

    private final String src;
    /** Index of the first character {@link ValidText} refuses, or -1. */
    private final int invalidAt;
    private int pos;
    private int line = 1;
    private int column = 1;

    public SourceCursor(String src) {
        this.src = src;
        this.invalidAt = ValidText.firstInvalid(src);
    }

    /**
     * Refuses source text longer than {@code maxChars} before any lexing, so that the work (and the token list)
     * of one compilation stays bounded.
     *
     * @param what the limit's name in the error, e.g. "query source length (characters)"
     * @throws ResourceLimitExceeded naming the limit
     */
    public static void requireLength(String what, String src, int maxChars) {
        if (src.length() > maxChars)
            throw new ResourceLimitExceeded(what, maxChars, src.length(), "split the source or shorten it");
    }

    /** Line of the next character (1-based). */
    public int line() {
        return line;
    }

    /** Column of the next character (1-based, in code points). */
    public int column() {
        return column;
    }

    public boolean atEnd() {
        return pos >= src.length();
    }

    /** The next character, or {@code '\0'} at the end. */
    public char peek() {
        return peek(0);
    }

    /** The character {@code ahead} places after the next one, or {@code '\0'} past the end. */
    public char peek(int ahead) {
        int i = pos + ahead;
        return i < src.length() ? src.charAt(i) : '\0';
    }

    /**
     * The next code point as text (both halves of a surrogate pair), for error messages; not at the end. Text
     * {@link ValidText} refuses is reported as such instead, so that no message carries it.
     */
    public String currentCodePoint() {
        if (pos == invalidAt) throw invalidText();
        return new String(Character.toChars(src.codePointAt(pos)));
    }

    private LexError invalidText() {
        return new LexError(line, column, ValidText.describe(src, pos) + " is not allowed; text must be valid"
                + " Unicode without NUL");
    }

    /**
     * Skips trivia and scans the next token of a form the shared rules define: end of input, a word (a type name
     * if it starts with {@code [A-Z]}, else an identifier), a number, a string literal, or the longest symbol of
     * the vocabulary. Returns null when the next character starts none of these, having consumed nothing after
     * the trivia: the language's own lexer then handles it at {@link #line()}/{@link #column()}.
     */
    public <K, T> T next(Vocabulary<K> vocabulary, Vocabulary.TokenFactory<K, T> tokens) {
        skipTrivia();
        int startLine = line;
        int startColumn = column;
        if (atEnd()) return tokens.token(vocabulary.eof(), "", startLine, startColumn);
        char c = peek();
        if (isWordStart(c)) {
            K kind = isTypeNameStart(c) ? vocabulary.typeName() : vocabulary.ident();
            return tokens.token(kind, word(), startLine, startColumn);
        }
        if (isDigit(c)) {
            String number = number();
            K kind = number.indexOf('.') >= 0 ? vocabulary.floatLit() : vocabulary.integer();
            return tokens.token(kind, number, startLine, startColumn);
        }
        if (c == '"') return tokens.token(vocabulary.string(), stringLiteral(), startLine, startColumn);
        String symbol = null;
        for (String s : vocabulary.symbols().keySet()) {
            if (src.startsWith(s, pos) && (symbol == null || s.length() > symbol.length())) symbol = s;
        }
        if (symbol == null) return null;
        for (int i = 0; i < symbol.length(); i++) advance();
        return tokens.token(vocabulary.symbols().get(symbol), symbol, startLine, startColumn);
    }

    /** Consumes one character and updates the position. */
    public void advance() {
        if (pos == invalidAt) throw invalidText();
        char c = src.charAt(pos++);
        if (c == '\n') {
            line++;
            column = 1;
        } else if (!Character.isLowSurrogate(c) || pos < 2 || !Character.isHighSurrogate(src.charAt(pos - 2))) {
            column++; // the low half of a surrogate pair does not start a new column
        }
    }

    /** Consumes the longest run of characters in {@code chars} and returns it (possibly empty). */
    public String takeWhile(CharClass chars) {
        int start = pos;
        while (pos < src.length() && chars.test(src.charAt(pos))) advance();
        return src.substring(start, pos);
    }

    /** Consumes {@code [A-Za-z0-9_]*}: the rest of a type name, identifier or variable name. */
    public String word() {
        return takeWhile(SourceCursor::isWordPart);
    }

    /**
     * Consumes a number {@code [0-9]+ ("." [0-9]+)?} starting at a digit and returns its source text; it is a
     * float exactly when the text contains {@code '.'}. {@code "1..5"} stays integer, dot-dot, integer: a float
     * needs a digit right after the dot.
     */
    private String number() {
        int start = pos;
        takeWhile(SourceCursor::isDigit);
        if (peek(0) == '.' && isDigit(peek(1))) {
            advance();
            takeWhile(SourceCursor::isDigit);
        }
        return src.substring(start, pos);
    }

    /**
     * Consumes a string literal starting at its opening quote and returns the decoded value. The only escapes are
     * {@code \" \\ \n \r \t}; an unterminated literal is reported at its opening quote, an invalid escape at its
     * backslash.
     */
    public String stringLiteral() {
        int startLine = line;
        int startColumn = column;
        advance(); // opening quote
        StringBuilder out = new StringBuilder();
        while (true) {
            if (pos >= src.length()) throw new LexError(startLine, startColumn, "unterminated string literal");
            char c = src.charAt(pos);
            if (c == '"') {
                advance();
                return out.toString();
            }
            if (c == '\\') {
                int escLine = line;
                int escColumn = column;
                advance();
                if (pos >= src.length()) throw new LexError(startLine, startColumn, "unterminated string literal");
                switch (src.charAt(pos)) {
                    case '"' -> out.append('"');
                    case '\\' -> out.append('\\');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    default -> throw new LexError(escLine, escColumn, "invalid escape '\\" + currentCodePoint()
                            + "' in string literal (allowed: \\\" \\\\ \\n \\r \\t)");
                }
                advance();
                continue;
            }
            out.append(c);
            advance();
        }
    }

    /** Skips whitespace and comments; an unterminated block comment is reported at its {@code /*}. */
    public void skipTrivia() {
        while (pos < src.length()) {
            char c = src.charAt(pos);
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
                advance();
            } else if (c == '/' && peek(1) == '/') {
                while (pos < src.length() && src.charAt(pos) != '\n') advance();
            } else if (c == '/' && peek(1) == '*') {
                int startLine = line;
                int startColumn = column;
                advance();
                advance();
                // Non-nesting: the first "*/" closes the comment.
                while (true) {
                    if (pos >= src.length()) throw new LexError(startLine, startColumn, "unterminated block comment");
                    if (src.charAt(pos) == '*' && peek(1) == '/') {
                        advance();
                        advance();
                        break;
                    }
                    advance();
                }
            } else {
                break;
            }
        }
        if (pos == invalidAt) throw invalidText();
    }

    /** {@code [A-Za-z_]}: the first character of a type name or identifier. */
    public static boolean isWordStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    }

    /** {@code [A-Za-z0-9_]}. */
    public static boolean isWordPart(char c) {
        return isWordStart(c) || isDigit(c);
    }

    /** {@code [A-Z]}: a word starting with it is a type name, otherwise an identifier. */
    public static boolean isTypeNameStart(char c) {
        return c >= 'A' && c <= 'Z';
    }

    public static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
