package dev.omnigraph.engine.read.search;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * BM25 corpus statistics per (dataset, branch, table version, column): a table version never changes, so an entry
 * stays right for as long as it is kept. Least recently used entries beyond {@link #MAX_ENTRIES} are dropped. Only
 * complete statistics are kept (a scan that failed or was cancelled leaves nothing behind); two queries missing the
 * same entry at once both build it.
 */
public final class CorpusCache {
    public static final int MAX_ENTRIES = 16;

    /** One column of one table version; {@code dataset} is the dataset's path, {@code branch} its Lance branch or "". */
    public record Key(String dataset, String branch, long version, String column) {}

    private final Map<Key, CorpusStats> entries = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, CorpusStats> eldest) {
            return size() > MAX_ENTRIES;
        }
    };

    public Mono<CorpusStats> get(Key key, Supplier<Mono<CorpusStats>> build) {
        return Mono.defer(() -> {
            CorpusStats hit;
            synchronized (entries) {
                hit = entries.get(key);
            }
            if (hit != null) return Mono.just(hit);
            return build.get().doOnNext(stats -> {
                synchronized (entries) {
                    entries.put(key, stats);
                }
            });
        });
    }

    /** Entries currently kept (for tests of the caching). */
    public int size() {
        synchronized (entries) {
            return entries.size();
        }
    }
}
