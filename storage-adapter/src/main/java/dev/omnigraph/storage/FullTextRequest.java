package dev.omnigraph.storage;

import java.util.List;
import java.util.Objects;

/**
 * A full-text query through a table's inverted index on {@code column}: the rows whose text matches {@code terms}
 * (tokens already split by the engine's tokenizer, joined by spaces), best BM25 score first, each with Lance's
 * {@code _score} (Float). {@link Match#ANY}: at least one term (a BM25 ranking); {@link Match#ALL}: every term;
 * {@link Match#FUZZY_ALL}: every term within {@code fuzziness} edits of a term of the text. {@code limit} 0 asks for
 * every match; otherwise the top {@code limit}. Projected to {@code columns} (all when empty).
 */
public record FullTextRequest(String column, String terms, Match match, int fuzziness, int limit, List<String> columns) {
    public enum Match { ANY, ALL, FUZZY_ALL }

    public FullTextRequest {
        SqlLiterals.requireIdentifier(column);
        Objects.requireNonNull(terms, "terms");
        Objects.requireNonNull(match, "match");
        columns = List.copyOf(columns);
        columns.forEach(SqlLiterals::requireIdentifier);
        if (limit < 0 || fuzziness < 0 || fuzziness > 2) {
            throw new IllegalArgumentException("limit must be >= 0 and fuzziness 0..2: " + limit + ", " + fuzziness);
        }
    }
}
