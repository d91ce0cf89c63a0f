package dev.omnigraph.engine.observe;

import dev.omnigraph.engine.read.TopologyCache;
import dev.omnigraph.storage.KeptHandleStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.ToDoubleFunction;

/**
 * Meters of the read caches, read from the counts the caches keep anyway (nothing is done per query): the
 * process's adjacency cache ({@code cache=topology}) and the dataset handles the storages of the handles opened
 * with a registry keep ({@code cache=dataset_handles}, summed over those storages, each counted once however
 * many handles share it). The only tags are {@code cache} and, on gets, {@code result}.
 *
 * <ul>
 *   <li>{@code omnigraph.cache.size}: entries held now;</li>
 *   <li>{@code omnigraph.cache.capacity}: entries that may be held (handles only; the topology cache is bounded
 *       by bytes);</li>
 *   <li>{@code omnigraph.cache.heap} and {@code omnigraph.cache.heap.max} (bytes): the topology cache's estimated
 *       heap and its cap;</li>
 *   <li>{@code omnigraph.cache.gets} ({@code result=hit|miss}) and {@code omnigraph.cache.evictions}: counters.</li>
 * </ul>
 */
public final class ReadCacheMeters {
    static final String TOPOLOGY = "topology";
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
                registerTopology(meters);
                registerHandles(meters, views);
            }
        }
        views.add(handles);
    }

    private static void registerTopology(MeterRegistry meters) {
        TopologyCache cache = TopologyCache.shared();
        Gauge.builder("omnigraph.cache.size", cache, c -> c.stats().entries()).tag("cache", TOPOLOGY)
                .description("entries the read cache holds").strongReference(true).register(meters);
        Gauge.builder("omnigraph.cache.heap", cache, c -> c.stats().bytes()).tag("cache", TOPOLOGY)
                .baseUnit("bytes").description("estimated heap of the adjacency cache's entries")
                .strongReference(true).register(meters);
        Gauge.builder("omnigraph.cache.heap.max", cache, c -> c.stats().capBytes()).tag("cache", TOPOLOGY)
                .baseUnit("bytes").description("the adjacency cache's cap (-Domnigraph.read.topologyCacheBytes)")
                .strongReference(true).register(meters);
        gets(meters, TOPOLOGY, cache, c -> c.stats().hits(), c -> c.stats().misses());
        FunctionCounter.builder("omnigraph.cache.evictions", cache, c -> c.stats().evictions()).tag("cache", TOPOLOGY)
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
