package dev.omnigraph.engine.observe;

import dev.omnigraph.engine.read.CacheStats;
import dev.omnigraph.engine.read.KeyRowsCache;
import dev.omnigraph.engine.read.TopologyCache;
import dev.omnigraph.storage.KeptHandleStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Meters of the read caches, read from the counts the caches keep anyway (nothing is done per query): the
 * process's adjacency cache ({@code cache=topology}), its key-rows cache ({@code cache=key_rows}) and the dataset handles the storages of the handles opened
 * with a registry keep ({@code cache=dataset_handles}, summed over those storages, each counted once however
 * many handles share it). The only tags are {@code cache} and, on gets, {@code result}.
 *
 * <ul>
 *   <li>{@code omnigraph.cache.size}: entries held now;</li>
 *   <li>{@code omnigraph.cache.capacity}: entries that may be held (handles only; the topology and key-rows caches
 *       are bounded by bytes);</li>
 *   <li>{@code omnigraph.cache.heap} and {@code omnigraph.cache.heap.max} (bytes): the topology and key-rows caches'
 *       estimated heap and cap;</li>
 *   <li>{@code omnigraph.cache.gets} ({@code result=hit|miss}) and {@code omnigraph.cache.evictions}: counters.</li>
 * </ul>
 */
public final class ReadCacheMeters {
    static final String TOPOLOGY = "topology";
    static final String KEY_ROWS = "key_rows";
    static final String HANDLES = "dataset_handles";

    private ReadCacheMeters() {
    }

    /** The kept-handle views counted in each registry, held weakly (a closed storage stops counting). */
    private static final Map<MeterRegistry, Set<KeptHandleStats>> BOUND = new WeakHashMap<>();

    /** Registers the meters in {@code meters} (once) and counts {@code handles} in the handle meters. */
    public static void bind(MeterRegistry meters, KeptHandleStats handles) {
        Set<KeptHandleStats> views;
        synchronized (BOUND) {
            views = BOUND.get(meters);
            if (views == null) {
                views = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));
                BOUND.put(meters, views);
                registerVersionCaches(meters);
                registerHandles(meters, views);
            }
        }
        views.add(handles);
    }

    private static void registerVersionCaches(MeterRegistry meters) {
        TopologyCache topologies = TopologyCache.shared();
        register(meters, TOPOLOGY, topologies::stats, "the adjacency cache", TopologyCache.CAP_PROPERTY);
        KeyRowsCache keyRows = KeyRowsCache.shared();
        register(meters, KEY_ROWS, keyRows::stats, "the key-rows cache", KeyRowsCache.CAP_PROPERTY);
    }

    private static void register(MeterRegistry meters, String tag, Supplier<CacheStats> stats, String what,
                                 String capProperty) {
        Gauge.builder("omnigraph.cache.size", stats, s -> s.get().entries()).tag("cache", tag)
                .description("entries the read cache holds").strongReference(true).register(meters);
        Gauge.builder("omnigraph.cache.heap", stats, s -> s.get().bytes()).tag("cache", tag)
                .baseUnit("bytes").description("estimated heap of " + what + "'s entries")
                .strongReference(true).register(meters);
        Gauge.builder("omnigraph.cache.heap.max", stats, s -> s.get().capBytes()).tag("cache", tag)
                .baseUnit("bytes").description(what + "'s cap (-D" + capProperty + ")")
                .strongReference(true).register(meters);
        gets(meters, tag, stats, s -> s.get().hits(), s -> s.get().misses());
        FunctionCounter.builder("omnigraph.cache.evictions", stats, s -> s.get().evictions()).tag("cache", tag)
                .description("entries evicted to stay within the cap").register(meters);
    }

    private static void registerHandles(MeterRegistry meters, Set<KeptHandleStats> views) {
        Gauge.builder("omnigraph.cache.size", views, v -> sum(v, KeptHandleStats::size)).tag("cache", HANDLES)
                .description("entries the read cache holds").strongReference(true).register(meters);
        Gauge.builder("omnigraph.cache.capacity", views, v -> sum(v, KeptHandleStats::capacity)).tag("cache", HANDLES)
                .description("entries the read cache may hold (-Domnigraph.lance.keptHandles per storage)")
                .strongReference(true).register(meters);
        gets(meters, HANDLES, views, v -> sum(v, KeptHandleStats::hits), v -> sum(v, KeptHandleStats::misses));
        FunctionCounter.builder("omnigraph.cache.evictions", views, v -> sum(v, KeptHandleStats::evictions))
                .tag("cache", HANDLES).description("entries evicted to stay within the capacity").register(meters);
    }

    private static <T> void gets(MeterRegistry meters, String cache, T source, ToDoubleFunction<T> hits,
                                 ToDoubleFunction<T> misses) {
        FunctionCounter.builder("omnigraph.cache.gets", source, hits).tags("cache", cache, "result", "hit")
                .description("lookups answered by the read cache").register(meters);
        FunctionCounter.builder("omnigraph.cache.gets", source, misses).tags("cache", cache, "result", "miss")
                .description("lookups the read cache did not answer").register(meters);
    }

    private static double sum(Set<KeptHandleStats> views, ToDoubleFunction<KeptHandleStats> reading) {
        synchronized (views) {
            return views.stream().mapToDouble(reading).sum();
        }
    }
}
