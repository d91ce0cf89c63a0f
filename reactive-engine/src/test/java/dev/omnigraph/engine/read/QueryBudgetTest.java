package dev.omnigraph.engine.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.QueryOutput;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.query.ReadPlan;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.error.QueryTimeout;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import dev.omnigraph.storage.manifest.ManifestState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * Query budgets on a real graph of 403 people (the size of the reported cross product): every breach is a typed
 * error raised while the query runs, and the graph answers the next query normally.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QueryBudgetTest {
    static final int PEOPLE = 403;
    static final String SCHEMA = """
            node Person {
                name: String @key
                age: I32?
            }
            edge Knows: Person -> Person
            """;
    static final String CROSS3 = "query q() { match { $a: Person $b: Person $c: Person } return { $a.name, $b.name, $c.name } }";
    static final String CROSS2 = "query q() { match { $a: Person $b: Person } return { $a.name, $b.name } }";
    static final String SCAN = "query q() { match { $p: Person } return { $p.name } }";

    @TempDir
    static Path dir;
    StorageServices services;
    Omnigraph graph;
    ManifestState state;

    @BeforeAll
    void setUp() {
        services = ReadFixture.services();
        graph = Omnigraph.init(services, dir.resolve("g"), SCHEMA).block();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < PEOPLE; i++) {
            lines.add("{\"type\":\"Person\",\"data\":{\"name\":\"p" + i + "\",\"age\":" + (i % 90) + "}}");
        }
        for (int i = 0; i + 1 < PEOPLE; i++) {
            lines.add("{\"edge\":\"Knows\",\"from\":\"p" + i + "\",\"to\":\"p" + (i + 1) + "\",\"data\":{\"id\":\"k" + i + "\"}}");
        }
        ReadFixture.load(graph, LoadMode.APPEND, lines);
        state = ReadFixture.head(graph);
    }

    @AfterAll
    void tearDown() {
        services.tables().close(); // fails on leaked Arrow memory: every refused query closed its scans
    }

    Flux<List<Object>> rows(String source, QueryLimits limits) {
        return rows(source, limits, Failpoints.none());
    }

    Flux<List<Object>> rows(String source, QueryLimits limits, Failpoints failpoints) {
        ReadPlan plan = ReadFixture.plan(graph, source);
        return new QueryExecutor(services.tables(), graph.root().toString(), graph.catalog(), failpoints)
                .execute(plan, plan.bind(Map.of()), state, ReadFixture.NOW, limits).rows();
    }

    static ResourceLimitExceeded breach(Flux<List<Object>> rows) {
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> rows.blockLast(Duration.ofSeconds(60)));
        assertThat(t).isInstanceOf(ResourceLimitExceeded.class);
        return (ResourceLimitExceeded) t;
    }

    @Test
    void theThreeWayCrossProductIsRefusedWithinItsDefaultBudget() {
        ResourceLimitExceeded e = breach(rows(CROSS3, QueryLimits.DEFAULT));
        // 403³ = 65 million solutions; the run stops at the first one past the intermediate-row cap.
        assertThat(e.limit()).isEqualTo(QueryBudget.INTERMEDIATE_ROWS);
        assertThat(e.allowed()).isEqualTo(QueryLimits.DEFAULT_MAX_INTERMEDIATE_ROWS);
        assertThat(e.actual()).isEqualTo(QueryLimits.DEFAULT_MAX_INTERMEDIATE_ROWS + 1);
        // The graph is fine afterwards.
        assertThat(rows(SCAN, QueryLimits.DEFAULT).collectList().block()).hasSize(PEOPLE);
    }

    @Test
    void theIntermediateRowCapStopsAStepAtTheFirstRowPastIt() {
        ResourceLimitExceeded e = breach(rows(CROSS2, QueryLimits.DEFAULT.withMaxIntermediateRows(1_000)));
        assertThat(e.limit()).isEqualTo(QueryBudget.INTERMEDIATE_ROWS);
        assertThat(e.actual()).isEqualTo(1_001);
        assertThat(e.getMessage()).contains("1000");
    }

    @Test
    void theResultRowCapCountsRowsAfterTheLimit() {
        QueryLimits limits = QueryLimits.DEFAULT.withMaxResultRows(100);
        ResourceLimitExceeded e = breach(rows(CROSS2, limits));
        assertThat(e.limit()).isEqualTo(QueryBudget.RESULT_ROWS);
        assertThat(e.actual()).isEqualTo((long) PEOPLE * PEOPLE);
        assertThat(rows(CROSS2.replace("} }", "} limit 100 }"), limits).collectList().block()).hasSize(100);
        // Aggregates: the groups are the rows.
        String perAge = "query q() { match { $p: Person } return { $p.age, count($p) } }";
        assertThat(breach(rows(perAge, QueryLimits.DEFAULT.withMaxResultRows(89))).actual()).isEqualTo(90);
        assertThat(rows(perAge, QueryLimits.DEFAULT.withMaxResultRows(90)).collectList().block()).hasSize(90);
    }

    @Test
    void aStreamedScanIsCountedAsItStreamsAndKeepsItsBackpressure() {
        QueryLimits limits = QueryLimits.DEFAULT.withMaxResultRows(100);
        ResourceLimitExceeded e = breach(rows(SCAN, limits));
        assertThat(e.limit()).isEqualTo(QueryBudget.RESULT_ROWS);
        assertThat(e.actual()).isEqualTo(101);
        // Under the cap, rows come only as they are requested; the cap is never reached by a consumer that stops.
        StepVerifier.create(rows(SCAN, limits), 0)
                .thenRequest(3).expectNextCount(3)
                .thenRequest(2).expectNextCount(2)
                .thenCancel()
                .verify(Duration.ofSeconds(30));
        assertThat(rows(SCAN.replace("} }", "} limit 100 }"), limits).collectList().block()).hasSize(100);
    }

    @Test
    void theMemoryBudgetCountsRowsKeptAndSolutionsAlive() {
        // 403 rows of a few dozen bytes fit 64 KiB; their 162,409 pairs do not.
        QueryLimits limits = QueryLimits.DEFAULT.withMaxMemoryBytes(64 * 1024);
        ResourceLimitExceeded e = breach(rows(CROSS2, limits));
        assertThat(e.limit()).isEqualTo(QueryBudget.MEMORY_BYTES);
        assertThat(e.allowed()).isEqualTo(64 * 1024);
        assertThat(e.actual()).isGreaterThan(64 * 1024).isLessThan(2 * 64 * 1024);
        // A traversal keeps its edge rows and visited sets: a walk over the whole chain is charged too.
        String walk = "query q() { match { $a: Person $a knows {1, 500} $b } return { $a.name, $b.name } }";
        assertThat(breach(rows(walk, QueryLimits.DEFAULT.withMaxMemoryBytes(256 * 1024))).limit())
                .isEqualTo(QueryBudget.MEMORY_BYTES);
        assertThat(rows(SCAN, limits).collectList().block()).hasSize(PEOPLE);
    }

    @Test
    void aStalledScanTimesOutOnTheVirtualClock() {
        Failpoints stall = Failpoints.none().arm(QueryExecutor.SCAN_FAILPOINT, new Failpoints.Action.Delay(3_600_000));
        QueryLimits limits = QueryLimits.DEFAULT.withTimeout(Duration.ofSeconds(5));
        for (String source : List.of(SCAN, CROSS2)) { // the streamed path and the in-memory path
            StepVerifier.withVirtualTime(() -> rows(source, limits, stall))
                    .expectSubscription()
                    .expectNoEvent(Duration.ofMillis(4_999))
                    .thenAwait(Duration.ofMillis(1))
                    .expectErrorSatisfies(t -> assertThat(t).isInstanceOf(QueryTimeout.class)
                            .hasMessageContaining("5000 ms"))
                    .verify(Duration.ofSeconds(30));
        }
    }

    @Test
    void theFacadeAppliesItsHandleLimitsAndPerQueryLimits() {
        String source = CROSS2.replace("query q()", "query pairs()");
        QueryLimits tight = QueryLimits.DEFAULT.withMaxIntermediateRows(10);
        QueryOutput perQuery = graph.query(ReadTarget.main(), source, "pairs", Map.of(), tight).block();
        assertThat(breach(perQuery.rows()).allowed()).isEqualTo(10);
        QueryLimits before = graph.queryLimits();
        try {
            graph.withQueryLimits(QueryLimits.DEFAULT.withMaxResultRows(7));
            QueryOutput handle = graph.query(ReadTarget.main(), source, "pairs", Map.of()).block();
            assertThat(breach(handle.rows()).allowed()).isEqualTo(7);
        } finally {
            graph.withQueryLimits(before);
        }
        assertThatThrownBy(() -> QueryLimits.DEFAULT.withTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThat(QueryLimits.DEFAULT.tightenedBy(tight).maxIntermediateRows()).isEqualTo(10);
    }
}
