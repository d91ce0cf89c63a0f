package dev.omnigraph.engine.schema;

import static dev.omnigraph.engine.lex.SourceCursor.isWordPart;

import dev.omnigraph.engine.lex.LexError;
import dev.omnigraph.engine.lex.SourceCursor;
import dev.omnigraph.engine.lex.Vocabulary;
import dev.omnigraph.storage.error.ParseError;

/**
 * Pull lexer for {@code .pg}. It is pulled one token at a time by {@link Parser} so that the parser can
 * switch to the atomic enum-value rule ({@code [A-Za-z0-9_-]+}) which the ordinary token rules cannot express.
 * The rules shared with {@code .gq} (trivia, words, numbers, strings, symbols, positions) live in
 * {@link SourceCursor}; its {@link LexError}s become {@link ParseError}s here. Positions are 1-based; columns
 * count code points.
 */
final class Lexer {
    static final String SOURCE = "schema";

    /** The symbols are {@code { } ( ) [ ] : , ? @ = - -> ..}: the kinds described by their quoted spelling. */
    private static final Vocabulary<Token.Kind> VOCABULARY = new Vocabulary<>(Token.Kind.EOF, Token.Kind.TYPE_NAME,
            Token.Kind.IDENT, Token.Kind.INTEGER, Token.Kind.FLOAT, Token.Kind.STRING,
            Vocabulary.quotedSymbols(Token.Kind.values(), k -> k.description));

    private final SourceCursor in;
    /** Declaration being parsed, reported as the error subject; maintained by the parser. */
    String subject = "";

    Lexer(String src) {
        this.in = new SourceCursor(src);
    }

    ParseError error(int atLine, int atColumn, String message) {
        return new ParseError(SOURCE, atLine, atColumn, subject, message);
    }

    /** Scans the next ordinary token. */
    Token next() {
        try {
            Token t = in.next(VOCABULARY, Token::new);
            if (t != null) return t;
            if (in.peek() == '.') throw error(in.line(), in.column(), "unexpected '.' (did you mean '..'?)");
            throw error(in.line(), in.column(), "unexpected character '" + in.currentCodePoint() + "'");
        } catch (LexError e) {
            throw error(e.line(), e.column(), e.getMessage());
        }
    }

    /** Scans one atomic enum value {@code [A-Za-z0-9_-]+}, after skipping whitespace and comments. */
    Token nextEnumValue() {
        try {
            in.skipTrivia();
        } catch (LexError e) {
            throw error(e.line(), e.column(), e.getMessage());
        }
        int startLine = in.line();
        int startColumn = in.column();
        String value = in.takeWhile(c -> isWordPart(c) || c == '-');
        if (value.isEmpty()) {
            String found = in.atEnd() ? "end of input" : "'" + in.peek() + "'";
            throw error(startLine, startColumn, "expected an enum value ([A-Za-z0-9_-]+), found " + found);
        }
        return new Token(Token.Kind.ENUM_VALUE, value, startLine, startColumn);
    }
}
