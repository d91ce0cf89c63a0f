package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.observe.EngineTelemetry;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.error.KeyConflict;
import dev.omnigraph.storage.error.StorageFault;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * A handle opened with a {@code MeterRegistry} records its writes: per writer kind and step, with outcomes, the
 * typed error of a conflict or refusal, recoveries, group sizes and storage calls, on real Lance. Tags stay
 * low-cardinality whatever the keys written. A handle without a registry records nothing and is not wrapped.
 */
class WriteMetricsTest {
    static final String QUERIES = """
            query addPerson($name: String) { insert Person { name: $name } }
            query pair($a: String, $b: String) {
                insert Person { name: $a }
                insert Person { name: $b }
                insert Knows { from: $a, to: $b }
            }
            """;
    static final List<String> WRITE_STEPS = List.of("heal", "gate_wait", "plan", "stage", "recheck", "arm",
            "table_commit", "confirm", "publish", "sidecar_delete");

    @TempDir
    Path dir;
    StorageServices services;
    SimpleMeterRegistry meters;
    Omnigraph graph;

    @BeforeEach
    void setUp() {
        services = EngineFixture.services();
        meters = new SimpleMeterRegistry();
        graph = Omnigraph.at(dir.resolve("g")).services(services).meterRegistry(meters).init(EngineFixture.SOCIAL).block();
    }

    @AfterEach
    void tearDown() {
        graph.close();
        EngineFixture.close(services);
    }

    void insert(String name) {
        graph.mutate("main", QUERIES, "addPerson", Map.of("name", name), WriteOptions.DEFAULT).block(Duration.ofSeconds(60));
    }

    void loadPerson(String name) {
        graph.load("main", LoadMode.APPEND, ndjson("{\"type\":\"Person\",\"data\":{\"name\":\"" + name + "\"}}"),
                LoadOptions.DEFAULT).block(Duration.ofSeconds(60));
    }

    long timerCount(String name, String... tags) {
        var timer = meters.find(name).tags(tags).timer();
        return timer == null ? 0 : timer.count();
    }

    double counter(String name, String... tags) {
        var counter = meters.find(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void aWriteTimesEachProtocolStepAndCountsItsCommit() {
        insert("Ada");

        assertThat(timerCount("omnigraph.write", "writer", "mutation", "outcome", "committed", "error", "none")).isEqualTo(1);
        assertThat(counter("omnigraph.write.commits", "writer", "mutation")).isEqualTo(1);
        for (String step : WRITE_STEPS) {
            assertThat(timerCount("omnigraph.write.step", "writer", "mutation", "step", step, "outcome", "success"))
                    .as(step).isEqualTo(1);
        }
        assertThat(meters.find("omnigraph.write.step").tag("outcome", "error").timers()).isEmpty();
        var groups = meters.find("omnigraph.write.group.size").tag("writer", "mutation").summary();
        assertThat(groups.count()).isEqualTo(1);
        assertThat(groups.totalAmount()).isEqualTo(1);
        assertThat(meters.find("omnigraph.write.conflicts").counters()).isEmpty();
        assertThat(meters.find("omnigraph.recoveries").counters()).isEmpty();

        // Storage calls by class come from the counting seam the builder put under the handle.
        FunctionTimer commits = meters.find("omnigraph.storage.calls").tag("call", "commit").functionTimer();
        double before = commits.count();
        assertThat(before).isGreaterThanOrEqualTo(2); // the table's commit and __manifest's
        insert("Bob");
        assertThat(commits.count()).isGreaterThan(before);
        assertThat(commits.totalTime(java.util.concurrent.TimeUnit.NANOSECONDS)).isPositive();

        assertThat(meters.find("omnigraph.lease.held").gauge().value()).isEqualTo(1);
        assertThat(meters.find("omnigraph.branch.queue.depth").gauge().value()).isZero();
        assertThat(meters.find("omnigraph.recovery.pending.sidecars").gauge().value()).isZero();
    }

    @Test
    void aConflictIsCountedByItsTypedError() {
        loadPerson("Ada");
        assertThatThrownBy(() -> loadPerson("Ada")).isInstanceOf(KeyConflict.class);

        assertThat(counter("omnigraph.write.commits", "writer", "load")).isEqualTo(1);
        assertThat(counter("omnigraph.write.conflicts", "writer", "load", "error", "key_conflict")).isEqualTo(1);
        assertThat(meters.find("omnigraph.write.refusals").counters()).isEmpty();
        assertThat(timerCount("omnigraph.write", "writer", "load", "outcome", "error", "error", "key_conflict")).isEqualTo(1);
        assertThat(timerCount("omnigraph.write", "writer", "load", "outcome", "committed")).isEqualTo(1);
    }

    @Test
    void aFailureAfterTheFirstCommitCountsItsCompensatingRecovery() {
        graph.failpoints().arm("mutation.after_commit:1", new Failpoints.Action.Error());
        assertThatThrownBy(() -> graph.mutate("main", QUERIES, "pair", Map.of("a", "Bob", "b", "Cy"), WriteOptions.DEFAULT)
                .block(Duration.ofSeconds(60))).isInstanceOf(StorageFault.class);
        graph.failpoints().disarm("mutation.after_commit:1");

        assertThat(counter("omnigraph.recoveries", "mode", "compensate", "outcome", "rolled_back")).isEqualTo(1);
        assertThat(counter("omnigraph.write.refusals", "writer", "mutation", "error", "storage_fault")).isEqualTo(1);
        assertThat(timerCount("omnigraph.write.step", "writer", "mutation", "step", "compensate", "outcome", "success"))
                .isEqualTo(1);
        assertThat(timerCount("omnigraph.write.step", "writer", "mutation", "step", "table_commit", "outcome", "error"))
                .isEqualTo(1);
        assertThat(counter("omnigraph.write.commits", "writer", "mutation")).isZero();
        assertThat(meters.find("omnigraph.recovery.pending.sidecars").gauge().value()).isZero();
    }

    @Test
    void theOpenTimeSweepCountsWhatItRecovered() throws Exception {
        // A copy of the root taken while a write is parked between its first table commit and its publish holds an
        // armed sidecar: opening the copy read-write sweeps it, with the registry already attached.
        Failpoints.Parked parked = graph.failpoints().park("mutation.after_commit:1");
        var write = graph.mutate("main", QUERIES, "pair", Map.of("a", "Bob", "b", "Cy"), WriteOptions.DEFAULT).toFuture();
        parked.reached().block();
        Path copy = dir.resolve("copy");
        dev.omnigraph.engine.crash.CrashHarness.copy(dir.resolve("g"), copy);
        parked.release();
        write.get();

        SimpleMeterRegistry reopened = new SimpleMeterRegistry();
        try (Omnigraph recovered = Omnigraph.at(copy).services(services).meterRegistry(reopened)
                .open(OpenMode.READ_WRITE).block(Duration.ofSeconds(60))) {
            assertThat(reopened.find("omnigraph.recoveries").tags("mode", "sweep", "outcome", "rolled_back").counter())
                    .isNotNull().extracting(c -> c.count()).isEqualTo(1.0);
            assertThat(recovered.recoveries().count().block()).isEqualTo(1);
        }
    }

    @Test
    void queriesAndMaintenanceRunsAreTimedAsOperations() {
        insert("Ada");
        graph.query(ReadTarget.main(), "query people() { match { $p: Person } return { $p.name } }", "people", Map.of())
                .block(Duration.ofSeconds(60));
        assertThatThrownBy(() -> graph.query(ReadTarget.main(), "query broken( {", "broken", Map.of()).block())
                .isInstanceOf(dev.omnigraph.storage.error.OmnigraphException.class);
        graph.maintenance().optimize(MaintenanceOperations.Target.main()).block(Duration.ofSeconds(60));

        assertThat(timerCount("omnigraph.query", "operation", "query", "outcome", "success", "error", "none")).isEqualTo(1);
        assertThat(timerCount("omnigraph.query", "operation", "query", "outcome", "error", "error", "parse_error")).isEqualTo(1);
        assertThat(timerCount("omnigraph.maintenance", "operation", "optimize", "outcome", "success")).isEqualTo(1);
    }

    @Test
    void aThousandDistinctKeysAddNoMeter() {
        insert("seed");
        loadPerson("dup");
        assertThatThrownBy(() -> loadPerson("dup")).isInstanceOf(KeyConflict.class);
        Set<Meter.Id> baseline = ids();

        Flux.range(0, 1000)
                .flatMap(i -> graph.mutate("main", QUERIES, "addPerson", Map.of("name", "key-" + i), WriteOptions.DEFAULT), 64)
                .blockLast(Duration.ofMinutes(5));
        for (int i = 0; i < 20; i++) {
            loadPerson("conflict-" + i);
            String existing = "conflict-" + i;
            assertThatThrownBy(() -> loadPerson(existing)).isInstanceOf(KeyConflict.class);
        }

        assertThat(ids()).isEqualTo(baseline);
        assertThat(counter("omnigraph.write.commits", "writer", "mutation")).isEqualTo(1001);
        assertThat(counter("omnigraph.write.conflicts", "writer", "load", "error", "key_conflict")).isEqualTo(21);
        List<String> tagValues = meters.getMeters().stream().flatMap(meter -> meter.getId().getTags().stream())
                .map(Tag::getValue).toList();
        assertThat(tagValues).noneMatch(value -> value.contains("key-") || value.contains("conflict-")
                || value.contains("main") || value.contains(dir.toString()));
    }

    private Set<Meter.Id> ids() {
        return meters.getMeters().stream().map(Meter::getId).collect(Collectors.toSet());
    }

    @Test
    void aLaterHandleOnTheSameRegistryAddsToTheSameStorageMeters() {
        FunctionTimer commits = meters.find("omnigraph.storage.calls").tag("call", "commit").functionTimer();
        graph.close();
        assertThat(meters.find("omnigraph.lease.held").gauge().value()).isZero();
        Omnigraph second = Omnigraph.at(dir.resolve("second")).services(services).meterRegistry(meters)
                .init(EngineFixture.SOCIAL).block();
        try {
            double before = commits.count();
            second.mutate("main", QUERIES, "addPerson", Map.of("name", "Ada"), WriteOptions.DEFAULT).block();
            assertThat(commits.count()).isGreaterThan(before);
            assertThat(meters.find("omnigraph.storage.calls").tag("call", "commit").functionTimers()).hasSize(1);
            // The gauges count the open handles, not the first one registered.
            assertThat(meters.find("omnigraph.lease.held").gauge().value()).isEqualTo(1);
        } finally {
            second.close();
        }
        graph = Omnigraph.at(dir.resolve("g")).services(services).meterRegistry(meters).open(OpenMode.READ_WRITE).block();
    }

    @Test
    void withoutARegistryNothingIsWrappedOrRecorded() {
        Omnigraph plain = Omnigraph.at(dir.resolve("plain")).services(services).init(EngineFixture.SOCIAL).block();
        try {
            assertThat(plain.telemetry()).isSameAs(EngineTelemetry.NONE);
            assertThat(plain.services().tables()).isSameAs(services.tables());
            plain.mutate("main", QUERIES, "addPerson", Map.of("name", "Ada"), WriteOptions.DEFAULT).block();
        } finally {
            plain.close();
        }
        assertThat(graph.services().tables()).isNotSameAs(services.tables());
        assertThat(meters.find("omnigraph.write").timers()).isEmpty();
    }
}
