package dev.omnigraph.engine.read.search;

import java.util.LinkedHashSet;
import java.util.List;

/**
 * Okapi BM25 with Lance's constants: for each distinct query term t of a document d,
 * {@code idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl))} with
 * {@code idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))}, k1 = 1.2, b = 0.75; N, df and avgdl from the column's
 * {@link CorpusStats} at the pinned version.
 */
public final class Bm25 {
    public static final double K1 = 1.2;
    public static final double B = 0.75;

    private Bm25() {}

    /** The score of one document (its text, null for none) for the query's tokens. */
    public static double score(CorpusStats stats, List<String> queryTokens, String text) {
        if (text == null || queryTokens.isEmpty() || stats.documents() == 0) return 0;
        List<String> doc = Tokenizer.tokens(text);
        double norm = K1 * (1 - B + B * doc.size() / stats.averageLength());
        double score = 0;
        for (String term : new LinkedHashSet<>(queryTokens)) {
            long tf = doc.stream().filter(term::equals).count();
            if (tf == 0) continue;
            int df = stats.df(term);
            double idf = Math.log(1 + (stats.documents() - df + 0.5) / (df + 0.5));
            score += idf * tf * (K1 + 1) / (tf + norm);
        }
        return score;
    }
}
