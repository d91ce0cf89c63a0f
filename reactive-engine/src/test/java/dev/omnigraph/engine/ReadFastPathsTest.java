package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.read.QueryLimits;
import dev.omnigraph.storage.StorageCallCounter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read fast paths give the in-memory answer: a filtered {@code count($p)} answered by one Lance count equals the
 * number of rows the same match returns (NULLs, deletions and a time-travel read included), and an
 * {@code order … limit k} kept in a bounded heap equals the first k rows of the full order.
 */
class ReadFastPathsTest {
    static final Duration WAIT = Duration.ofSeconds(120);
    static final String SCHEMA = """
            node Person {
                name: String @key
                age: I32?
                city: String?
            }
            """;
    static final String QUERIES = """
            query drop($n: String) { delete Person where name = $n }
            query n($x: I32, $c: String) { match { $p: Person  $p.age > $x  $p.city = $c } return { count($p) as n, count($p) as m } }
            query rows($x: I32, $c: String) { match { $p: Person  $p.age > $x  $p.city = $c } return { $p.name } }
            query all() { match { $p: Person } return { count($p) } }
            query allRows() { match { $p: Person } return { $p.name } }
            query ages($x: I32) { match { $p: Person  $p.age > $x } return { count($p.age) as n } }
            query top($x: I32) { match { $p: Person  $p.age > $x } return { $p.name, $p.age } order { $p.age desc, $p.city } limit 7 }
            query ordered($x: I32) { match { $p: Person  $p.age > $x } return { $p.name, $p.age } order { $p.age desc, $p.city } }
            """;

    @TempDir
    Path dir;

    @Test
    void countsAndTopKMatchTheFullEvaluation() throws Exception {
        StorageCallCounter counter = new StorageCallCounter();
        StorageServices services = EngineFixture.countingServices(counter);
        Random random = new Random(7);
        try (Omnigraph graph = Omnigraph.at(dir.resolve("g")).services(services).init(SCHEMA).block(WAIT)) {
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < 600; i++) {
                String age = random.nextInt(8) == 0 ? "null" : String.valueOf(random.nextInt(90));
                String city = random.nextInt(6) == 0 ? "null" : "\"c" + random.nextInt(4) + "\"";
                lines.add("{\"type\":\"Person\",\"data\":{\"name\":\"p" + i + "\",\"age\":" + age + ",\"city\":" + city + "}}");
            }
            Path file = Files.write(dir.resolve("p.ndjson"), lines);
            graph.load("main", LoadMode.APPEND, file, LoadOptions.DEFAULT).block(WAIT);
            String loaded = graph.commits("main").blockFirst(WAIT).id();
            for (int i = 0; i < 40; i++)
                graph.mutate("main", QUERIES, "drop", Map.of("n", "p" + random.nextInt(600)), WriteOptions.DEFAULT).block(WAIT);

            for (ReadTarget target : List.of(ReadTarget.main(), ReadTarget.commit(loaded))) {
                for (int round = 0; round < 8; round++) {
                    Map<String, Object> p = Map.of("x", random.nextInt(90), "c", "c" + random.nextInt(4));
                    long countsBefore = counter.get(StorageCallCounter.Call.COUNT);
                    List<List<Object>> counted = rows(graph, target, "n", p);
                    assertThat(counter.get(StorageCallCounter.Call.COUNT)).as("answered by one Lance count")
                            .isEqualTo(countsBefore + 1);
                    long expected = rows(graph, target, "rows", p).size();
                    assertThat(counted).isEqualTo(List.of(List.of(expected, expected)));
                }
                assertThat(rows(graph, target, "all", Map.of()).get(0).get(0))
                        .isEqualTo((long) rows(graph, target, "allRows", Map.of()).size());
                Map<String, Object> x = Map.of("x", 10);
                long nonNull = rows(graph, target, "rows", Map.of("x", -1, "c", "c1")).size(); // sanity: data present
                assertThat(nonNull).isPositive();
                assertThat(rows(graph, target, "ages", x).get(0).get(0))
                        .isEqualTo((long) rows(graph, target, "ordered", x).size());
                for (int round = 0; round < 5; round++) {
                    Map<String, Object> q = Map.of("x", random.nextInt(95));
                    List<List<Object>> all = rows(graph, target, "ordered", Map.of("x", q.get("x")));
                    assertThat(rows(graph, target, "top", q)).isEqualTo(all.subList(0, Math.min(7, all.size())));
                }
            }
        } finally {
            EngineFixture.close(services);
        }
    }

    /**
     * An {@code order … limit k} holds k solutions, not every match: under a memory budget that the full order
     * passes, the top k still answers, and equals the first k of the full order read without that budget.
     */
    @Test
    void aTopKHoldsOnlyItsKSolutionsUnderTheMemoryBudget() throws Exception {
        Map<String, Object> x = Map.of("x", 5);
        List<List<Object>> all;
        try (Omnigraph graph = Omnigraph.at(dir.resolve("g")).init(SCHEMA).block(WAIT)) {
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < 3_000; i++)
                lines.add("{\"type\":\"Person\",\"data\":{\"name\":\"p" + i + "\",\"age\":" + (i * 37 % 90)
                        + ",\"city\":\"c" + (i % 5) + "\"}}");
            graph.load("main", LoadMode.APPEND, Files.write(dir.resolve("p.ndjson"), lines), LoadOptions.DEFAULT).block(WAIT);
            all = rows(graph, ReadTarget.main(), "ordered", x);
        }
        QueryLimits tight = new QueryLimits(1_000_000, 1_000_000, 64 * 1024, Duration.ofSeconds(60));
        try (Omnigraph graph = Omnigraph.at(dir.resolve("g")).queryLimits(tight).open(OpenMode.READ_ONLY).block(WAIT)) {
            assertThatThrownBy(() -> rows(graph, ReadTarget.main(), "ordered", x))
                    .as("the full order holds every match").hasMessageContaining("query_memory_bytes");
            assertThat(rows(graph, ReadTarget.main(), "top", x)).isEqualTo(all.subList(0, 7));
        }
    }

    private static List<List<Object>> rows(Omnigraph graph, ReadTarget target, String query, Map<String, Object> params) {
        return graph.query(target, QUERIES, query, params).flatMap(o -> o.rows().collectList()).block(WAIT);
    }

}
