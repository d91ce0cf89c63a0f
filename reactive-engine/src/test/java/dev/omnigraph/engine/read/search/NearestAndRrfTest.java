package dev.omnigraph.engine.read.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** nearest top-k equals brute force on random vectors, with and without filters; rrf equals a hand-computed fusion. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NearestAndRrfTest {
    static final String SCHEMA = """
            node Item {
                key: String @key
                cat: I32
                vec: Vector(4)?
                body: String?
            }
            """;
    static final int ROWS = 300;

    @TempDir
    static Path dir;
    StorageServices services;
    Omnigraph graph;
    final List<Item> items = new ArrayList<>();

    record Item(String key, int cat, float[] vec) {}

    @BeforeAll
    void setUp() {
        services = SearchFixture.services();
        Random random = new Random(18);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            float[] v = new float[4];
            for (int j = 0; j < 4; j++) v[j] = random.nextFloat() * 2 - 1;
            Item item = new Item(String.format("i%03d", i), random.nextInt(5), i % 50 == 7 ? null : v);
            items.add(item);
            String vec = item.vec() == null ? "" : ",\"vec\":[" + item.vec()[0] + "," + item.vec()[1] + "," + item.vec()[2]
                    + "," + item.vec()[3] + "]";
            lines.add("{\"type\":\"Item\",\"data\":{\"key\":\"" + item.key() + "\",\"cat\":" + item.cat() + vec + "}}");
        }
        graph = SearchFixture.graph(services, dir.resolve("g"), SCHEMA, lines);
    }

    @AfterAll
    void tearDown() {
        services.tables().close();
    }

    static double distance(float[] a, List<Double> q) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            double d = (double) a[i] - (double) (float) (double) q.get(i);
            sum += d * d;
        }
        return sum;
    }

    List<String> bruteForce(List<Double> q, int k, Integer cat) {
        return items.stream().filter(i -> i.vec() != null && (cat == null || i.cat() == cat))
                .sorted(Comparator.comparingDouble((Item i) -> distance(i.vec(), q)))
                .limit(k).map(Item::key).toList();
    }

    @Test
    void topKEqualsBruteForceWithAndWithoutFilters() {
        Random random = new Random(7);
        for (int round = 0; round < 5; round++) {
            List<Double> q = new ArrayList<>();
            for (int j = 0; j < 4; j++) q.add((double) (random.nextFloat() * 2 - 1));
            List<List<Object>> all = SearchFixture.query(graph, """
                    query q($q: Vector(4)) {
                        match { $i: Item }
                        return { $i.key, nearest($i.vec, $q) as d }
                        order { nearest($i.vec, $q) }
                        limit 10
                    }""", Map.of("q", q));
            assertThat(all).extracting(r -> r.get(0)).containsExactlyElementsOf(bruteForce(q, 10, null));
            for (List<Object> r : all) {
                Item item = items.stream().filter(i -> i.key().equals(r.get(0))).findFirst().orElseThrow();
                assertThat((Double) r.get(1)).isCloseTo(distance(item.vec(), q), within(1e-12));
            }
            int cat = round % 5;
            // the filter keeps about a fifth of the rows; the top 10 must still be 10 rows, the closest of that fifth
            List<Object> filtered = SearchFixture.first(graph, """
                    query q($q: Vector(4), $c: I32) {
                        match { $i: Item  $i.cat = $c }
                        return { $i.key }
                        order { nearest($i.vec, $q) }
                        limit 10
                    }""", Map.of("q", q, "c", cat));
            assertThat(filtered).hasSize(10).containsExactlyElementsOf(bruteForce(q, 10, cat));
        }
    }

    @Test
    void rowsWithoutAVectorComeLast() {
        List<Object> keys = SearchFixture.first(graph, """
                query q() {
                    match { $i: Item }
                    return { $i.key }
                    order { nearest($i.vec, [0, 0, 0, 0]) }
                    limit 300
                }""", Map.of());
        List<Object> tail = keys.subList(ROWS - 6, ROWS);
        assertThat(tail).containsExactlyInAnyOrder("i007", "i057", "i107", "i157", "i207", "i257");
    }

    /**
     * Four documents. nearest to [0,0,0,0]: c (0), a (1), d (4), b (9) → ranks c1 a2 d3 b4. bm25 for "apple":
     * a ("apple apple", tf 2, |d| 2) > b ("apple", tf 1, |d| 1) > d ("apple banana cherry", tf 1, |d| 3); c has no
     * "apple" and is not in that list → ranks a1 b2 d3. With k = 60: a = 1/62 + 1/61, b = 1/64 + 1/62,
     * d = 1/63 + 1/63, c = 1/61 — so a, b, d, c. With k = 2: a = 1/4 + 1/3, b = 1/6 + 1/4, d = 1/5 + 1/5, c = 1/3.
     */
    @Test
    void rrfEqualsAHandComputedFusion(@TempDir Path own) {
        Omnigraph g = SearchFixture.graph(services, own.resolve("g"), SCHEMA, List.of(
                "{\"type\":\"Item\",\"data\":{\"key\":\"a\",\"cat\":0,\"vec\":[1,0,0,0],\"body\":\"apple apple\"}}",
                "{\"type\":\"Item\",\"data\":{\"key\":\"b\",\"cat\":0,\"vec\":[3,0,0,0],\"body\":\"apple\"}}",
                "{\"type\":\"Item\",\"data\":{\"key\":\"c\",\"cat\":0,\"vec\":[0,0,0,0],\"body\":\"banana\"}}",
                "{\"type\":\"Item\",\"data\":{\"key\":\"d\",\"cat\":0,\"vec\":[2,0,0,0],\"body\":\"apple banana cherry\"}}"));
        String q = """
                query q($q: Vector(4)) {
                    match { $i: Item }
                    return { $i.key, rrf(nearest($i.vec, $q), bm25($i.body, "apple")%s) as s }
                    order { rrf(nearest($i.vec, $q), bm25($i.body, "apple")%s) desc }
                    limit 4
                }""";
        Map<String, Object> params = Map.of("q", List.of(0, 0, 0, 0));
        List<List<Object>> rows = SearchFixture.query(g, q.formatted("", ""), params);
        assertThat(rows).extracting(r -> r.get(0)).containsExactly("a", "b", "d", "c");
        assertThat(rows).extracting(r -> (Double) r.get(1)).containsExactly(1.0 / 62 + 1.0 / 61, 1.0 / 64 + 1.0 / 62,
                1.0 / 63 + 1.0 / 63, 1.0 / 61);
        List<List<Object>> k2 = SearchFixture.query(g, q.formatted(", 2", ", 2"), params);
        assertThat(k2).extracting(r -> r.get(0)).containsExactly("a", "b", "d", "c");
        assertThat(k2).extracting(r -> (Double) r.get(1)).containsExactly(1.0 / 4 + 1.0 / 3, 1.0 / 6 + 1.0 / 4,
                1.0 / 5 + 1.0 / 5, 1.0 / 3);
    }
}
