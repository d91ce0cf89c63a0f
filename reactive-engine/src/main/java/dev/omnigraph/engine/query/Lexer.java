package dev.omnigraph.engine.query;

import java.util.ArrayList;
import java.util.List;

/**
 * Eager lexer for {@code .gq}: the whole source becomes a token list, so the parser can look several tokens
 * ahead (a clause is a binding, a traversal or a filter depending on its second and third tokens). A lexical
 * error becomes a final {@link Token.Kind#ERROR} token instead of an exception, so that the parser reports it
 * with the name of the query it occurs in. Positions are 1-based; columns count code points.
 */
final class Lexer {
    private final String src;
    private int pos;
    private int line = 1;
    private int column = 1;

    private Lexer(String src) {
        this.src = src;
    }

    static List<Token> tokenize(String src) {
        Lexer lexer = new Lexer(src);
        List<Token> out = new ArrayList<>();
        while (true) {
            Token t;
            try {
                t = lexer.next();
            } catch (LexError e) {
                out.add(new Token(Token.Kind.ERROR, e.getMessage(), e.line, e.column));
                out.add(new Token(Token.Kind.EOF, "", lexer.line, lexer.column));
                return out;
            }
            out.add(t);
            if (t.is(Token.Kind.EOF)) return out;
        }
    }

    private static final class LexError extends RuntimeException {
        final int line;
        final int column;

        LexError(int line, int column, String message) {
            super(message, null, false, false);
            this.line = line;
            this.column = column;
        }
    }

    private Token next() {
        skipTrivia();
        if (pos >= src.length()) return new Token(Token.Kind.EOF, "", line, column);
        int startLine = line;
        int startColumn = column;
        char c = src.charAt(pos);
        if (isWordStart(c)) {
            String word = word();
            Token.Kind kind = c >= 'A' && c <= 'Z' ? Token.Kind.TYPE_NAME : Token.Kind.IDENT;
            return new Token(kind, word, startLine, startColumn);
        }
        if (c == '$') {
            advance();
            char first = peekChar(0);
            if (!((first >= 'a' && first <= 'z') || first == '_'))
                throw new LexError(startLine, startColumn,
                        "expected a variable name after '$' (a lowercase letter or '_' first)");
            return new Token(Token.Kind.VARIABLE, word(), startLine, startColumn);
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
            case '.' -> kind = Token.Kind.DOT;
            case '?' -> kind = Token.Kind.QUESTION;
            case '@' -> kind = Token.Kind.AT;
            case '=' -> kind = Token.Kind.EQ;
            case '!' -> {
                if (peekChar(1) != '=') throw new LexError(startLine, startColumn, "unexpected '!' (did you mean '!='?)");
                advance();
                kind = Token.Kind.NE;
                text = "!=";
            }
            case '<' -> {
                if (peekChar(1) == '=') {
                    advance();
                    kind = Token.Kind.LE;
                    text = "<=";
                } else {
                    kind = Token.Kind.LT;
                }
            }
            case '>' -> {
                if (peekChar(1) == '=') {
                    advance();
                    kind = Token.Kind.GE;
                    text = ">=";
                } else {
                    kind = Token.Kind.GT;
                }
            }
            case '-' -> throw new LexError(startLine, startColumn,
                    "negative numbers cannot be written in .gq; pass them as parameters");
            default -> throw new LexError(startLine, startColumn,
                    "unexpected character '" + new String(Character.toChars(src.codePointAt(pos))) + "'");
        }
        advance();
        return new Token(kind, text, startLine, startColumn);
    }

    private String word() {
        int start = pos;
        while (pos < src.length() && isWordPart(src.charAt(pos))) advance();
        return src.substring(start, pos);
    }

    private Token number(int startLine, int startColumn) {
        int start = pos;
        while (pos < src.length() && isDigit(src.charAt(pos))) advance();
        if (peekChar(0) == '.' && isDigit(peekChar(1))) {
            advance();
            while (pos < src.length() && isDigit(src.charAt(pos))) advance();
            return new Token(Token.Kind.FLOAT, src.substring(start, pos), startLine, startColumn);
        }
        if (pos < src.length() && isWordStart(src.charAt(pos)))
            throw new LexError(line, column, "unexpected '" + src.charAt(pos) + "' after number");
        return new Token(Token.Kind.INTEGER, src.substring(start, pos), startLine, startColumn);
    }

    private Token string(int startLine, int startColumn) {
        advance(); // opening quote
        StringBuilder out = new StringBuilder();
        while (true) {
            if (pos >= src.length()) throw new LexError(startLine, startColumn, "unterminated string literal");
            char c = src.charAt(pos);
            if (c == '"') {
                advance();
                return new Token(Token.Kind.STRING, out.toString(), startLine, startColumn);
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
                    default -> throw new LexError(escLine, escColumn, "invalid escape '\\"
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
                    if (pos >= src.length()) throw new LexError(startLine, startColumn, "unterminated block comment");
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
}
