package dev.omnigraph.engine.schema;

import dev.omnigraph.storage.error.ParseError;

/**
 * Pull lexer for {@code .pg}. It is pulled one token at a time by {@link Parser} so that the parser can
 * switch to the atomic enum-value rule ({@code [A-Za-z0-9_-]+}) which the ordinary token rules cannot express.
 * Positions are 1-based; columns count code points.
 */
final class Lexer {
    static final String SOURCE = "schema";

    private final String src;
    private int pos;
    private int line = 1;
    private int column = 1;
    /** Declaration being parsed, reported as the error subject; maintained by the parser. */
    String subject = "";

    Lexer(String src) {
        this.src = src;
    }

    ParseError error(int atLine, int atColumn, String message) {
        return new ParseError(SOURCE, atLine, atColumn, subject, message);
    }

    /** Scans the next ordinary token. */
    Token next() {
        skipTrivia();
        if (pos >= src.length()) return new Token(Token.Kind.EOF, "", line, column);
        int startLine = line;
        int startColumn = column;
        char c = src.charAt(pos);
        if (isWordStart(c)) {
            int start = pos;
            while (pos < src.length() && isWordPart(src.charAt(pos))) advance();
            String word = src.substring(start, pos);
            Token.Kind kind = c >= 'A' && c <= 'Z' ? Token.Kind.TYPE_NAME : Token.Kind.IDENT;
            return new Token(kind, word, startLine, startColumn);
        }
        if (isDigit(c)) return number(startLine, startColumn);
        if (c == '"') return string(startLine, startColumn);
        Token.Kind kind;
        String text = String.valueOf(c);
        switch (c) {
            case '{' -> kind = Token.Kind.LBRACE;
            case '}' -> kind = Token.Kind.RBRACE;
            case '(' -> kind = Token.Kind.LPAREN;
            case ')' -> kind = Token.Kind.RPAREN;
            case '[' -> kind = Token.Kind.LBRACKET;
            case ']' -> kind = Token.Kind.RBRACKET;
            case ':' -> kind = Token.Kind.COLON;
            case ',' -> kind = Token.Kind.COMMA;
            case '?' -> kind = Token.Kind.QUESTION;
            case '@' -> kind = Token.Kind.AT;
            case '=' -> kind = Token.Kind.EQUALS;
            case '-' -> {
                if (peekChar(1) == '>') {
                    advance();
                    kind = Token.Kind.ARROW;
                    text = "->";
                } else {
                    kind = Token.Kind.MINUS;
                }
            }
            case '.' -> {
                if (peekChar(1) != '.') throw error(startLine, startColumn, "unexpected '.' (did you mean '..'?)");
                advance();
                kind = Token.Kind.DOTDOT;
                text = "..";
            }
            default -> throw error(startLine, startColumn,
                    "unexpected character '" + new String(Character.toChars(src.codePointAt(pos))) + "'");
        }
        advance();
        return new Token(kind, text, startLine, startColumn);
    }

    /** Scans one atomic enum value {@code [A-Za-z0-9_-]+}, after skipping whitespace and comments. */
    Token nextEnumValue() {
        skipTrivia();
        int startLine = line;
        int startColumn = column;
        int start = pos;
        while (pos < src.length() && isEnumChar(src.charAt(pos))) advance();
        if (pos == start) {
            String found = pos >= src.length() ? "end of input" : "'" + src.charAt(pos) + "'";
            throw error(startLine, startColumn, "expected an enum value ([A-Za-z0-9_-]+), found " + found);
        }
        return new Token(Token.Kind.ENUM_VALUE, src.substring(start, pos), startLine, startColumn);
    }

    private Token number(int startLine, int startColumn) {
        int start = pos;
        while (pos < src.length() && isDigit(src.charAt(pos))) advance();
        // "1..5" must stay integer, dot-dot, integer: a float needs a digit right after the dot.
        if (peekChar(0) == '.' && isDigit(peekChar(1))) {
            advance();
            while (pos < src.length() && isDigit(src.charAt(pos))) advance();
            return new Token(Token.Kind.FLOAT, src.substring(start, pos), startLine, startColumn);
        }
        return new Token(Token.Kind.INTEGER, src.substring(start, pos), startLine, startColumn);
    }

    private Token string(int startLine, int startColumn) {
        advance(); // opening quote
        StringBuilder out = new StringBuilder();
        while (true) {
            if (pos >= src.length()) throw error(startLine, startColumn, "unterminated string literal");
            char c = src.charAt(pos);
            if (c == '"') {
                advance();
                return new Token(Token.Kind.STRING, out.toString(), startLine, startColumn);
            }
            if (c == '\\') {
                int escLine = line;
                int escColumn = column;
                advance();
                if (pos >= src.length()) throw error(startLine, startColumn, "unterminated string literal");
                char e = src.charAt(pos);
                switch (e) {
                    case '"' -> out.append('"');
                    case '\\' -> out.append('\\');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    default -> throw error(escLine, escColumn, "invalid escape '\\"
                            + new String(Character.toChars(src.codePointAt(pos)))
                            + "' in string literal (allowed: \\\" \\\\ \\n \\r \\t)");
                }
                advance();
                continue;
            }
            out.append(c);
            advance();
        }
    }

    private void skipTrivia() {
        while (pos < src.length()) {
            char c = src.charAt(pos);
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
                advance();
            } else if (c == '/' && peekChar(1) == '/') {
                while (pos < src.length() && src.charAt(pos) != '\n') advance();
            } else if (c == '/' && peekChar(1) == '*') {
                int startLine = line;
                int startColumn = column;
                advance();
                advance();
                // Non-nesting: the first "*/" closes the comment.
                while (true) {
                    if (pos >= src.length()) throw error(startLine, startColumn, "unterminated block comment");
                    if (src.charAt(pos) == '*' && peekChar(1) == '/') {
                        advance();
                        advance();
                        break;
                    }
                    advance();
                }
            } else {
                return;
            }
        }
    }

    private char peekChar(int ahead) {
        int i = pos + ahead;
        return i < src.length() ? src.charAt(i) : '\0';
    }

    private void advance() {
        char c = src.charAt(pos++);
        if (c == '\n') {
            line++;
            column = 1;
        } else if (!Character.isLowSurrogate(c) || pos < 2 || !Character.isHighSurrogate(src.charAt(pos - 2))) {
            column++; // the low half of a surrogate pair does not start a new column
        }
    }

    private static boolean isWordStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    }

    private static boolean isWordPart(char c) {
        return isWordStart(c) || isDigit(c);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isEnumChar(char c) {
        return isWordPart(c) || c == '-';
    }
}
