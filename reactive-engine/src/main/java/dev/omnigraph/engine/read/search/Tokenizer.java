package dev.omnigraph.engine.read.search;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The one tokenizer of full-text search, the same pipeline as the Lance inverted index this engine creates
 * ({@code base_tokenizer "simple"}, lower case, no stemming, English stop words removed, no ASCII folding, max token
 * length 40): a token is a maximal run of alphanumeric code points (letters, marks of alphabetic scripts, and every
 * Unicode number: Rust's {@code char::is_alphanumeric}), lower-cased code point by code point; a token of 40 UTF-8
 * bytes or more is dropped, and so is one of the {@link #STOP_WORDS}.
 */
public final class Tokenizer {
    /** Tokens of this many UTF-8 bytes or more are dropped, as the index's {@code max_token_length}. */
    public static final int MAX_TOKEN_BYTES = 40;

    /**
     * Lance 7's English stop words (the index drops them; found by indexing each candidate word and querying it), so
     * document lengths, and with them BM25 scores, are the index's.
     */
    public static final Set<String> STOP_WORDS = Set.of("a", "an", "and", "are", "as", "at", "be", "but", "by", "for",
            "if", "in", "into", "is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then",
            "there", "these", "they", "this", "to", "was", "will", "with");

    private Tokenizer() {}

    public static List<String> tokens(String text) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int i = 0;
        while (i < text.length()) {
            int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            if (alphanumeric(cp)) {
                current.appendCodePoint(Character.toLowerCase(cp));
            } else if (!current.isEmpty()) {
                add(out, current);
            }
        }
        if (!current.isEmpty()) add(out, current);
        return out;
    }

    private static void add(List<String> out, StringBuilder token) {
        String t = token.toString();
        token.setLength(0);
        if (t.getBytes(StandardCharsets.UTF_8).length < MAX_TOKEN_BYTES && !STOP_WORDS.contains(t)) out.add(t);
    }

    static boolean alphanumeric(int cp) {
        if (Character.isAlphabetic(cp)) return true;
        int type = Character.getType(cp);
        return type == Character.DECIMAL_DIGIT_NUMBER || type == Character.LETTER_NUMBER || type == Character.OTHER_NUMBER;
    }
}
