package dev.omnigraph.engine.read.search;

import dev.omnigraph.engine.query.TextFilter;
import dev.omnigraph.storage.error.BadRequest;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Compiles a text clause into an exact predicate over a solution: the row of the clause's variable sits at
 * {@code slot}. The query is tokenized once; each document is tokenized as it is tested.
 */
public final class TextFilters {
    private TextFilters() {}

    /**
     * @param query    the resolved query text; null (an absent optional parameter) matches nothing
     * @param distance the resolved fuzzy distance, or null for the automatic one
     * @throws BadRequest for a fuzzy distance parameter outside 0..2
     */
    public static Predicate<Object[]> compile(TextFilter.Op op, int slot, String column, String query, Long distance) {
        if (distance != null && (distance < 0 || distance > 2))
            throw new BadRequest("fuzzy distance must be between 0 and 2, got " + distance);
        if (query == null) return s -> false;
        List<String> q = Tokenizer.tokens(query);
        Integer d = distance == null ? null : distance.intValue();
        return s -> {
            @SuppressWarnings("unchecked") Map<String, Object> row = (Map<String, Object>) s[slot];
            Object text = row == null ? null : row.get(column);
            if (text == null) return false;
            List<String> doc = Tokenizer.tokens((String) text);
            return switch (op) {
                case SEARCH -> TextMatch.all(doc, q);
                case FUZZY -> TextMatch.fuzzy(doc, q, d);
                case MATCH_TEXT -> TextMatch.phrase(doc, q);
            };
        };
    }
}
