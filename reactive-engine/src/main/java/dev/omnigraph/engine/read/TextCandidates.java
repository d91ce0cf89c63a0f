package dev.omnigraph.engine.read;

import dev.omnigraph.engine.schema.IndexPlan;
import dev.omnigraph.engine.query.TextFilter;
import dev.omnigraph.engine.read.search.TextMatch;
import dev.omnigraph.engine.read.search.Tokenizer;
import dev.omnigraph.storage.FullTextRequest;
import java.util.List;
import java.util.Optional;

/**
 * The planner step for text clauses: when the variable a scan is about to read has a {@code search}, {@code fuzzy}
 * or {@code match_text} clause, and its table's version has the column's inverted index, the rows come from Lance's
 * full-text query instead of a scan. The query only pre-selects: it asks for every row holding all the query's
 * terms (within the edits, for fuzzy), a superset of the clause's matches (a phrase holds its terms), and every
 * filter, the text clause included, is still evaluated exactly on what it returns. No index: the scan reads.
 */
record TextCandidates(String variable, String column, FullTextRequest.Match match, String terms, int fuzziness) {

    /** The first text clause of {@code variable} that an index could answer, if any. */
    static Optional<TextCandidates> of(String variable, List<TextFilter> filters, Predicates predicates) {
        for (TextFilter f : filters) {
            if (!f.field().variable().equals(variable)) continue;
            Object query = predicates.operand(f.query(), null).value();
            if (!(query instanceof String q)) continue;
            List<String> tokens = Tokenizer.tokens(q);
            if (tokens.isEmpty()) continue; // matches nothing; the exact path says so without an index
            int fuzziness = 0;
            if (f.op() == TextFilter.Op.FUZZY) {
                Object d = f.distance() == null ? null : predicates.operand(f.distance(), null).value();
                if (d == null) {
                    for (String t : tokens) fuzziness = Math.max(fuzziness, TextMatch.autoDistance(t));
                } else {
                    long given = ((Number) d).longValue();
                    if (given < 0 || given > 2) continue; // refused when the filter is compiled
                    fuzziness = (int) given;
                }
            }
            FullTextRequest.Match match = fuzziness > 0 ? FullTextRequest.Match.FUZZY_ALL : FullTextRequest.Match.ALL;
            return Optional.of(new TextCandidates(variable, f.field().property().name(), match,
                    String.join(" ", tokens), fuzziness));
        }
        return Optional.empty();
    }

    /** The index to ask and what to ask it for. */
    String index() {
        return IndexPlan.invertedIndexName(column);
    }

    FullTextRequest request(List<String> columns) {
        return new FullTextRequest(column, terms, match, fuzziness, 0, columns);
    }
}
