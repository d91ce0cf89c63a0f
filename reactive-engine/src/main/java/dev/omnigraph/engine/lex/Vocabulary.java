package dev.omnigraph.engine.lex;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * What one language calls the tokens that the shared rules of {@link SourceCursor#next} produce: its kinds
 * ({@code K}) for end of input, type names, identifiers, integers, floats and strings, and its symbol tokens
 * (punctuation and operators) by spelling.
 */
public record Vocabulary<K>(K eof, K typeName, K ident, K integer, K floatLit, K string, Map<String, K> symbols) {

    public Vocabulary {
        symbols = Map.copyOf(symbols);
    }

    /** Makes one token of a language; {@code text} is the decoded value for strings, the source text otherwise. */
    @FunctionalInterface
    public interface TokenFactory<K, T> {
        T token(K kind, String text, int line, int column);
    }

    /**
     * The symbol table of a language whose symbol kinds are described, in its error messages, by their
     * spelling in single quotes (a kind described as {@code "'->'"} is the symbol {@code ->}); kinds with any
     * other description are not symbols.
     */
    public static <K> Map<String, K> quotedSymbols(K[] kinds, Function<K, String> description) {
        Map<String, K> symbols = new HashMap<>();
        for (K kind : kinds) {
            String d = description.apply(kind);
            if (d.length() > 2 && d.startsWith("'") && d.endsWith("'")) symbols.put(d.substring(1, d.length() - 1), kind);
        }
        return symbols;
    }
}
