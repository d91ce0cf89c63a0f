package dev.omnigraph.engine.read.search;

import dev.omnigraph.storage.error.ResourceLimitExceeded;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * BM25 corpus statistics of one text column at one table version: the documents (rows whose text is not NULL),
 * their total token count, and each term's document frequency. Immutable once built; built by {@link Builder} from
 * a full scan of the column at the pinned version.
 */
public record CorpusStats(long documents, long totalTokens, Map<String, Integer> documentFrequency) {
    /** The most distinct terms one column's statistics may hold (bounds the memory of a cached entry). */
    public static final int MAX_TERMS = 1 << 21;

    public CorpusStats {
        documentFrequency = Map.copyOf(documentFrequency);
    }

    public double averageLength() {
        return documents == 0 ? 0 : (double) totalTokens / documents;
    }

    public int df(String term) {
        return documentFrequency.getOrDefault(term, 0);
    }

    /** Accumulates documents one at a time (confined to one scan). */
    public static final class Builder {
        private long documents;
        private long tokens;
        private final Map<String, Integer> df = new HashMap<>();
        private final String what;

        public Builder(String what) {
            this.what = what;
        }

        public void add(String text) {
            if (text == null) return;
            List<String> t = Tokenizer.tokens(text);
            documents++;
            tokens += t.size();
            Set<String> distinct = new HashSet<>(t);
            for (String term : distinct) df.merge(term, 1, Integer::sum);
            if (df.size() > MAX_TERMS)
                throw new ResourceLimitExceeded("bm25 vocabulary of " + what, MAX_TERMS, df.size(),
                        "bm25 keeps every distinct term of the column in memory");
        }

        public CorpusStats build() {
            return new CorpusStats(documents, tokens, df);
        }
    }
}
