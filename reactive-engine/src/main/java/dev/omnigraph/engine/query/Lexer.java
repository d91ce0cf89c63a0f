package dev.omnigraph.engine.query;

import static dev.omnigraph.engine.lex.SourceCursor.isWordStart;

import dev.omnigraph.engine.lex.LexError;
import dev.omnigraph.engine.lex.SourceCursor;
import dev.omnigraph.engine.lex.Vocabulary;
import java.util.ArrayList;
import java.util.List;

/**
 * Eager lexer for {@code .gq}: the whole source becomes a token list, so the parser can look several tokens
 * ahead (a clause is a binding, a traversal or a filter depending on its second and third tokens). A lexical
 * error becomes a final {@link Token.Kind#ERROR} token instead of an exception, so that the parser reports it
 * with the name of the query it occurs in. The rules shared with {@code .pg} (trivia, words, numbers, strings,
 * symbols, positions) live in {@link SourceCursor}. Positions are 1-based; columns count code points.
 */
final class Lexer {
    /** The symbols are {@code { } ( ) [ ] : , . ? @ = != < <= > >=}: the kinds described by their quoted spelling. */
    private static final Vocabulary<Token.Kind> VOCABULARY = new Vocabulary<>(Token.Kind.EOF, Token.Kind.TYPE_NAME,
            Token.Kind.IDENT, Token.Kind.INTEGER, Token.Kind.FLOAT, Token.Kind.STRING,
            Vocabulary.quotedSymbols(Token.Kind.values(), k -> k.description));

    private final SourceCursor in;

    private Lexer(String src) {
        this.in = new SourceCursor(src);
    }

    static List<Token> tokenize(String src) {
        Lexer lexer = new Lexer(src);
        List<Token> out = new ArrayList<>();
        while (true) {
            Token t;
            try {
                t = lexer.next();
            } catch (LexError e) {
                out.add(new Token(Token.Kind.ERROR, e.getMessage(), e.line(), e.column()));
                out.add(new Token(Token.Kind.EOF, "", lexer.in.line(), lexer.in.column()));
                return out;
            }
            out.add(t);
            if (t.is(Token.Kind.EOF)) return out;
        }
    }

    private Token next() {
        Token t = in.next(VOCABULARY, Token::new);
        if (t != null) {
            // "1e3", "1.5e3", "0x10": the grammar's numbers are digits only, so a letter right after one is refused
            // where it stands, not read as the next token.
            if ((t.is(Token.Kind.INTEGER) || t.is(Token.Kind.FLOAT)) && isWordStart(in.peek()))
                throw new LexError(in.line(), in.column(), "unexpected '" + in.peek() + "' after number");
            return t;
        }
        int startLine = in.line();
        int startColumn = in.column();
        switch (in.peek()) {
            case '$' -> {
                in.advance();
                char first = in.peek();
                if (!((first >= 'a' && first <= 'z') || first == '_'))
                    throw new LexError(startLine, startColumn,
                            "expected a variable name after '$' (a lowercase letter or '_' first)");
                return new Token(Token.Kind.VARIABLE, in.word(), startLine, startColumn);
            }
            case '!' -> throw new LexError(startLine, startColumn, "unexpected '!' (did you mean '!='?)");
            case '-' -> throw new LexError(startLine, startColumn,
                    "negative numbers cannot be written in .gq; pass them as parameters");
            default -> throw new LexError(startLine, startColumn, "unexpected character '" + in.currentCodePoint() + "'");
        }
    }
}
