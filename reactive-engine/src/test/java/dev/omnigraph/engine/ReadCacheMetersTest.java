package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.read.KeyRowsCache;
import dev.omnigraph.engine.read.TopologyCache;
import dev.omnigraph.storage.KeptHandleStats;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A handle opened with a {@code MeterRegistry} reports the read caches: the adjacency cache's entries, estimated
 * heap and cap, hits, misses and evictions, and the kept dataset handles' entries, capacity, hits and misses, each
 * equal to the cache's own counts, on real Lance, with only the {@code cache} and {@code result} tags.
 */
class ReadCacheMetersTest {
    static final Duration WAIT = Duration.ofSeconds(120);
    static final String READS = """
            query out($n: String) { match { $p: Person { name: $n }  $p knows $f } return { $f.name } }
            query liked($n: String) { match { $p: Person { name: $n }  $p likes $f } return { $f.name } }
            query named($n: String) { match { $p: Person { name: $n } } return { $p.name } }
            """;

    @TempDir
    Path dir;
    StorageServices services;
    SimpleMeterRegistry meters;
    Omnigraph graph;

    @BeforeEach
    void open() {
        TopologyCache.shared().capBytes(0); // empty: entries of other tests' graphs share relative locations
        TopologyCache.shared().capBytes(TopologyCacheTest.ON);
        services = EngineFixture.services();
        meters = new SimpleMeterRegistry();
        graph = Omnigraph.at(dir.resolve("g")).services(services).meterRegistry(meters)
                .init(TopologyCacheTest.SCHEMA).block(WAIT);
    }

    @AfterEach
    void close() {
        graph.close();
        EngineFixture.close(services);
        TopologyCache.shared().capBytes(Long.getLong(TopologyCache.CAP_PROPERTY, 256L << 20));
    }

    @Test
    void topologyMetersFollowTheCache() {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 30; i++) lines.add("{\"type\":\"Person\",\"data\":{\"name\":\"p" + i + "\",\"age\":1}}");
        load(lines);
        lines.clear();
        for (int i = 0; i < 60; i++) {
            lines.add("{\"edge\":\"Knows\",\"from\":\"p" + (i % 30) + "\",\"to\":\"p" + (i * 7 % 30) + "\"}");
            lines.add("{\"edge\":\"Likes\",\"from\":\"p" + (i * 3 % 30) + "\",\"to\":\"p" + (i % 30) + "\"}");
        }
        load(lines);

        double hits = gets("topology", "hit");
        double misses = gets("topology", "miss");
        rows("out", "p1");
        assertThat(gets("topology", "miss")).as("the first traversal builds").isEqualTo(misses + 1);
        rows("out", "p2");
        assertThat(gets("topology", "hit")).isEqualTo(hits + 1);
        TopologyCache.Stats stats = TopologyCache.shared().stats();
        assertThat(gauge("omnigraph.cache.size", "topology")).isEqualTo(stats.entries()).isEqualTo(1);
        assertThat(gauge("omnigraph.cache.heap", "topology")).isEqualTo(stats.bytes()).isPositive();
        assertThat(gauge("omnigraph.cache.heap.max", "topology")).isEqualTo(TopologyCacheTest.ON);

        TopologyCache.shared().capBytes(stats.bytes() * 3 / 2); // room for one of the two edge tables
        double evictions = counter("omnigraph.cache.evictions", "topology");
        rows("liked", "p3");
        rows("out", "p3");
        assertThat(counter("omnigraph.cache.evictions", "topology")).isEqualTo(evictions + 2)
                .isEqualTo(TopologyCache.shared().stats().evictions());
        assertThat(gauge("omnigraph.cache.heap", "topology")).isLessThanOrEqualTo(stats.bytes() * 3 / 2);
        assertThat(gets("topology", "miss")).isEqualTo(TopologyCache.shared().stats().misses());
        // The key-rows cache reports through the same meters.
        KeyRowsCache.Stats keyRows = KeyRowsCache.shared().stats();
        assertThat(gauge("omnigraph.cache.heap.max", "key_rows")).isEqualTo(keyRows.capBytes()).isPositive();
        assertThat(gauge("omnigraph.cache.size", "key_rows")).isEqualTo(keyRows.entries());
        assertThat(gets("key_rows", "hit")).isEqualTo(keyRows.hits());
        onlyLowCardinalityTags();
    }

    @Test
    void keptHandleMetersFollowTheStorage() {
        load(List.of("{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"age\":1}}",
                "{\"type\":\"Person\",\"data\":{\"name\":\"b\",\"age\":2}}"));
        KeptHandleStats kept = services.tables().keptHandles();
        rows("named", "a");
        double hits = gets("dataset_handles", "hit");
        rows("named", "b");
        rows("named", "a");
        assertThat(gets("dataset_handles", "hit")).as("repeated reads of one version reuse its handle")
                .isGreaterThanOrEqualTo(hits + 2).isEqualTo(kept.hits());
        assertThat(gets("dataset_handles", "miss")).isEqualTo(kept.misses()).isPositive();
        assertThat(gauge("omnigraph.cache.size", "dataset_handles")).isEqualTo(kept.size()).isPositive();
        assertThat(gauge("omnigraph.cache.capacity", "dataset_handles")).isEqualTo(kept.capacity()).isPositive();
        assertThat(counter("omnigraph.cache.evictions", "dataset_handles")).isEqualTo(kept.evictions());

        // A second handle on the same storage counts it once.
        graph.close();
        graph = Omnigraph.at(dir.resolve("g")).services(services).meterRegistry(meters).open(OpenMode.READ_WRITE).block(WAIT);
        rows("named", "a");
        assertThat(gets("dataset_handles", "hit")).isEqualTo(kept.hits());
        onlyLowCardinalityTags();
    }

    private void onlyLowCardinalityTags() {
        for (Meter meter : meters.getMeters()) {
            if (!meter.getId().getName().startsWith("omnigraph.cache.")) continue;
            for (var tag : meter.getId().getTags()) {
                assertThat(Set.of("cache", "result")).contains(tag.getKey());
                assertThat(Set.of("topology", "key_rows", "dataset_handles", "hit", "miss")).contains(tag.getValue());
            }
        }
    }

    private double gets(String cache, String result) {
        return meters.get("omnigraph.cache.gets").tags("cache", cache, "result", result).functionCounter().count();
    }

    private double counter(String name, String cache) {
        return meters.get(name).tag("cache", cache).functionCounter().count();
    }

    private double gauge(String name, String cache) {
        return meters.get(name).tag("cache", cache).gauge().value();
    }

    private List<List<Object>> rows(String query, String start) {
        return graph.query(ReadTarget.main(), READS, query, Map.of("n", start)).flatMap(o -> o.rows().collectList())
                .block(WAIT);
    }

    private void load(List<String> lines) {
        graph.load("main", LoadMode.APPEND, GraphTestSupport.ndjson(lines.toArray(String[]::new)), LoadOptions.DEFAULT)
                .block(WAIT);
    }
}
