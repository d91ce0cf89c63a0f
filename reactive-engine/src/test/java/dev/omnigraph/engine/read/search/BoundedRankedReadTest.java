package dev.omnigraph.engine.read.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.read.QueryLimits;
import dev.omnigraph.storage.StorageCallCounter;
import dev.omnigraph.storage.StorageCallCounter.Call;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A ranked read keeps its top k, not its solutions: on a corpus of {@link #DOCUMENTS} documents, {@code bm25} and
 * {@code nearest} top-10 reads (and a top 10 by a property) run under a budget of {@link #BUDGET} intermediate rows,
 * which an ordered read without a limit breaches (the in-memory path holds every solution). Answered first by the bounded heap (no index),
 * then through the inverted index, which returns a handful of rows.
 */
class BoundedRankedReadTest {
    static final int DOCUMENTS = 100_000;
    static final int BUDGET = 1_000;
    static final String SCHEMA = """
            node Doc {
                slug: String @key
                body: String @index
                vec: Vector(2)
            }
            """;
    static final String QUERIES = """
            query top($q: String) {
                match { $d: Doc } return { $d.slug, bm25($d.body, $q) as s } order { bm25($d.body, $q) } limit 10
            }
            query near($v: Vector(2)) { match { $d: Doc } return { $d.slug } order { nearest($d.vec, $v) } limit 3 }
            query bySlug() { match { $d: Doc } return { $d.slug } order { $d.slug desc } limit 10 }
            query allBySlug() { match { $d: Doc } return { $d.slug } order { $d.slug desc } }
            """;
    static final QueryLimits LIMITS = QueryLimits.DEFAULT.withMaxIntermediateRows(BUDGET);

    @TempDir
    Path dir;
    final StorageCallCounter counter = new StorageCallCounter();
    StorageServices services;
    Omnigraph graph;

    @BeforeEach
    void load() {
        services = SearchFixture.countingServices(counter);
        graph = Omnigraph.init(services, dir.resolve("g"), SCHEMA).block();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < DOCUMENTS; i++) {
            // Every 10,000th document holds the needle; all have four tokens, so the needles tie.
            String body = i % 10_000 == 7 ? "needle in the hay " + (i % 3) : "hay and more hay " + (i % 3);
            lines.add(String.format("{\"type\":\"Doc\",\"data\":{\"slug\":\"d%06d\",\"body\":\"%s\",\"vec\":[%d,0]}}",
                    i, body, i));
            if (lines.size() == 8192 || i == DOCUMENTS - 1) {
                SearchFixture.load(graph, lines);
                lines.clear();
            }
        }
    }

    @AfterEach
    void close() {
        services.tables().close();
    }

    List<List<Object>> rows(String query, Map<String, Object> params) {
        return graph.query(ReadTarget.main(), QUERIES, query, params, LIMITS).block().rows().collectList().block();
    }

    static List<String> needlesByIdDescending() {
        List<String> out = new ArrayList<>();
        for (int i = DOCUMENTS - 10_000 + 7; i >= 0; i -= 10_000) out.add(String.format("d%06d", i));
        return out;
    }

    @Test
    void rankedTopKHoldsKSolutionsWhateverTheCorpusSize() {
        assertThatThrownBy(() -> rows("allBySlug", Map.of())).as("the in-memory path holds every solution")
                .isInstanceOf(ResourceLimitExceeded.class);
        assertThat(rows("bySlug", Map.of())).as("a top k by a property holds k too").extracting(r -> r.get(0))
                .containsExactly("d099999", "d099998", "d099997", "d099996", "d099995", "d099994", "d099993",
                        "d099992", "d099991", "d099990");

        List<List<Object>> heap = rows("top", Map.of("q", "needle"));
        assertThat(heap).extracting(r -> r.get(0)).containsExactlyElementsOf(needlesByIdDescending());
        assertThat(rows("near", Map.of("v", List.of(41.2, 0.0)))).extracting(r -> r.get(0))
                .containsExactly("d000041", "d000042", "d000040");

        graph.ensureIndexes("main", Optional.empty()).block();
        long returned = counter.get(Call.FULL_TEXT_ROWS);
        long scanned = counter.get(Call.SCAN_ROWS);
        List<List<Object>> indexed = rows("top", Map.of("q", "needle"));
        assertThat(indexed).extracting(r -> r.get(0)).containsExactlyElementsOf(needlesByIdDescending());
        assertThat(counter.get(Call.SCAN_ROWS)).as("nothing scanned").isEqualTo(scanned);
        assertThat(counter.get(Call.FULL_TEXT_ROWS) - returned).as("the ten needles").isEqualTo(10);
        for (int i = 0; i < 10; i++) {
            assertThat((Double) indexed.get(i).get(1)).as("Lance's score").isCloseTo((Double) heap.get(i).get(1),
                    org.assertj.core.api.Assertions.within(1e-5));
        }
    }
}
