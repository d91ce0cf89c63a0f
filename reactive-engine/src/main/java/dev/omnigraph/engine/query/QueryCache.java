package dev.omnigraph.engine.query;

import dev.omnigraph.engine.schema.Catalog;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Parsed {@code .gq} files by source text, and checked read plans by (source, query name, catalog), so a client
 * that sends the same query text on every request (the HTTP {@code /query} route, a stored query, an embedder's
 * constant) parses and checks it once. Both steps are pure functions of those inputs and their results are
 * immutable, so a cached answer is exactly the one a fresh compile gives; a catalog is matched by identity (a
 * schema apply makes a new one, so plans of the old schema are never found again and age out). Failures are not
 * kept. Bounded: at most {@value #ENTRIES} entries each, least recently used dropped first, and only sources up to
 * {@value #MAX_SOURCE_CHARS} characters (a larger one is compiled every time, as before).
 */
public final class QueryCache {
    static final int ENTRIES = 256;
    static final int MAX_SOURCE_CHARS = 64 * 1024;

    private record PlanKey(String source, String name, Catalog catalog) {
        @Override
        public boolean equals(Object o) {
            return o instanceof PlanKey k && k.catalog == catalog && k.name.equals(name) && k.source.equals(source);
        }

        @Override
        public int hashCode() {
            return (source.hashCode() * 31 + name.hashCode()) * 31 + System.identityHashCode(catalog);
        }
    }

    private static final Lru<String, QueryFile> FILES = new Lru<>();
    private static final Lru<PlanKey, CompiledQuery> PLANS = new Lru<>();

    private QueryCache() {
    }

    /** {@link QueryCompiler#parse}, answered from the cache when this exact text was parsed before. */
    static QueryFile parse(String source, Supplier<QueryFile> parser) {
        if (source == null || source.length() > MAX_SOURCE_CHARS) return parser.get();
        return FILES.computeIfAbsent(source, parser);
    }

    /**
     * {@link QueryCompiler#compile} of a read query, answered from the cache when this text and name were checked
     * against this very catalog before. Mutations are compiled every time (their plans are not kept).
     */
    public static CompiledQuery compileRead(String source, String name, Catalog catalog) {
        if (source == null || name == null || source.length() > MAX_SOURCE_CHARS) {
            return QueryCompiler.compile(source, name, catalog);
        }
        PlanKey key = new PlanKey(source, name, catalog);
        CompiledQuery kept = PLANS.get(key);
        if (kept != null) return kept;
        CompiledQuery compiled = QueryCompiler.compile(source, name, catalog);
        if (compiled instanceof ReadPlan) PLANS.put(key, compiled);
        return compiled;
    }

    /**
     * Whether {@code source} was parsed before and is still kept: compiling it again costs a lookup (and at most
     * one check against a new catalog), so a caller may do it where long work is not allowed (an event loop).
     */
    public static boolean parsedBefore(String source) {
        return source != null && source.length() <= MAX_SOURCE_CHARS && FILES.get(source) != null;
    }

    /** Forgets every kept file and plan (tests). */
    static void clear() {
        FILES.clear();
        PLANS.clear();
    }

    /** Entries kept, files then plans (tests). */
    static int[] sizes() {
        return new int[] {FILES.size(), PLANS.size()};
    }

    /** A synchronized access-ordered map of at most {@link #ENTRIES}; values are computed outside the lock. */
    private static final class Lru<K, V> {
        private final LinkedHashMap<K, V> map = new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > ENTRIES;
            }
        };

        synchronized V get(K key) {
            return map.get(key);
        }

        synchronized void put(K key, V value) {
            map.put(key, value);
        }

        V computeIfAbsent(K key, Supplier<V> compute) {
            V kept = get(key);
            if (kept != null) return kept;
            V computed = compute.get();
            put(key, computed);
            return computed;
        }

        synchronized void clear() {
            map.clear();
        }

        synchronized int size() {
            return map.size();
        }
    }
}
