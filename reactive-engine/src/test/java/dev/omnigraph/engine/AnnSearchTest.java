package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.storage.StorageCallCounter;
import dev.omnigraph.storage.StorageCallCounter.Call;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code nearest} through the vector index: an unfiltered top-k goes through Lance's vector search (its distances
 * still exact), a filtered one stays an exact scan (a filter never shrinks a top-k), and a table small enough for
 * every partition to be probed gives exactly the brute-force answer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AnnSearchTest {
    static final String SCHEMA = """
            node Item {
                key: String @key
                cat: I32
                vec: Vector(8)? @index
            }
            """;
    static final String QUERIES = """
            query near($q: Vector(8)) {
                match { $i: Item } return { $i.key, nearest($i.vec, $q) as d } order { nearest($i.vec, $q) } limit 10
            }
            query nearIn($q: Vector(8), $c: I32) {
                match { $i: Item  $i.cat = $c } return { $i.key } order { nearest($i.vec, $q) } limit 10
            }
            """;
    static final int ROWS = 3000;

    @TempDir
    static Path dir;
    StorageCallCounter counter = new StorageCallCounter();
    StorageServices services;
    Omnigraph graph;
    final Map<String, float[]> vectors = new HashMap<>();
    final Map<String, Integer> cats = new HashMap<>();

    @BeforeAll
    void seed() {
        services = EngineFixture.countingServices(counter);
        graph = Omnigraph.init(services, dir.resolve("g"), SCHEMA).block();
        Random random = new Random(18);
        for (int from = 0; from < ROWS; from += 1500) {
            List<String> lines = new ArrayList<>();
            for (int i = from; i < from + 1500; i++) {
                float[] v = new float[8];
                StringBuilder json = new StringBuilder();
                for (int j = 0; j < 8; j++) {
                    v[j] = random.nextFloat() * 2 - 1;
                    json.append(j == 0 ? "" : ",").append(v[j]);
                }
                String key = "i" + i;
                vectors.put(key, v);
                cats.put(key, i % 5);
                lines.add("{\"type\":\"Item\",\"data\":{\"key\":\"" + key + "\",\"cat\":" + (i % 5) + ",\"vec\":[" + json + "]}}");
            }
            graph.load("main", LoadMode.APPEND, ndjson(lines.toArray(String[]::new)), LoadOptions.DEFAULT).block();
        }
        // The first load trained the vector index on its 1,500 rows; the second, a bulk write, retrained it over all of
        // them in its own index transaction (half the rows were new), so the index covers every row.
        assertThat(graph.ensureIndexes("main", Optional.empty()).block().noop()).isTrue();
        TableInfo items = graph.snapshot(ReadTarget.main()).block().table("node:Item").orElseThrow();
        dev.omnigraph.storage.TableRef ref = new dev.omnigraph.storage.TableRef(
                graph.root().resolve(items.path()).toString(), items.lanceBranch());
        assertThat(services.tables().indexNames(ref, items.version()).block()).contains("og_vector_vec");
        assertThat(services.tables().partialIndexes(ref, items.version()).block()).isEmpty();
    }

    @AfterAll
    void close() {
        EngineFixture.close(services);
    }

    static double distance(float[] a, List<Double> q) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            double d = (double) a[i] - (double) (float) (double) q.get(i);
            sum += d * d;
        }
        return sum;
    }

    List<String> bruteForce(List<Double> q, Integer cat) {
        return vectors.keySet().stream().filter(k -> cat == null || cats.get(k).equals(cat))
                .sorted(Comparator.comparingDouble((String k) -> distance(vectors.get(k), q)).thenComparing(k -> k))
                .limit(10).toList();
    }

    List<List<Object>> run(String query, Map<String, Object> params) {
        return graph.query(ReadTarget.main(), QUERIES, query, params).block().rows().collectList().block();
    }

    @Test
    void unfilteredGoesThroughTheIndexWithExactDistancesAndHighRecall() {
        Random random = new Random(7);
        int found = 0;
        for (int round = 0; round < 4; round++) {
            List<Double> q = new ArrayList<>();
            for (int j = 0; j < 8; j++) q.add((double) (random.nextFloat() * 2 - 1));
            long searches = counter.get(Call.INDEX);
            long scannedRows = counter.get(Call.SCAN_ROWS);
            List<List<Object>> rows = run("near", Map.of("q", q));
            assertThat(counter.get(Call.INDEX)).as("the vector index was looked up").isEqualTo(searches + 1);
            assertThat(counter.get(Call.SCAN_ROWS)).as("no table scan").isEqualTo(scannedRows);
            // IVF over ~√3000 partitions probes a fifth of them (IndexPlan.probes): the candidates are approximate on
            // uniform random vectors (the hardest case), the distances reported exact and in order.
            List<String> exact = bruteForce(q, null);
            assertThat(rows).hasSize(10);
            found += (int) rows.stream().filter(r -> exact.contains((String) r.get(0))).count();
            double previous = 0;
            for (List<Object> r : rows) {
                assertThat((Double) r.get(1)).isCloseTo(distance(vectors.get((String) r.get(0)), q), within(1e-12))
                        .isGreaterThanOrEqualTo(previous);
                previous = (Double) r.get(1);
            }
        }
        assertThat(found / 40.0).as("recall@10 over 4 queries").isGreaterThanOrEqualTo(0.9);
    }

    @Test
    void aFilteredTopKStaysExact() {
        List<Double> q = List.of(0.1, -0.2, 0.3, 0.0, 0.5, -0.5, 0.2, 0.1);
        for (int cat = 0; cat < 5; cat++) {
            long searches = counter.get(Call.INDEX);
            List<List<Object>> rows = run("nearIn", Map.of("q", q, "c", cat));
            assertThat(counter.get(Call.INDEX)).isEqualTo(searches);
            assertThat(rows).hasSize(10).extracting(r -> r.get(0)).containsExactlyElementsOf(bruteForce(q, cat));
        }
    }
}
