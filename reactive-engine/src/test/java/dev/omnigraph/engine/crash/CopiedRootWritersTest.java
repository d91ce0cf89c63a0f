package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.internal.HandleInternals;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.recovery.SidecarStore;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * Issue 30, item 1, for the writer kinds {@link CopiedRootRecoveryTest} does not cover (mutation, load and a
 * first-touch fork are there; the schema apply is in {@code SchemaApplyCrashTest}): a branch merge, an index
 * ensure and an optimize killed in a child JVM with their sidecar pending, the root copied, the copy opened
 * read-write. The copy recovers on its own tables (the state the same recovery gives the original); the original's
 * files are byte for byte untouched until it is opened itself, and then it recovers the same way.
 */
class CopiedRootWritersTest {
    static StorageServices services;

    @TempDir
    static Path scratch;

    @BeforeAll
    static void start() {
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
    }

    @AfterAll
    static void stop() {
        services.tables().close();
    }

    static void load(Omnigraph graph, String branch, LoadMode mode, List<String> lines) {
        graph.load(branch, mode, Flux.fromIterable(lines)
                .map(line -> ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8))), LoadOptions.DEFAULT).block();
    }

    @Test
    void aBranchMergeKilledMidWay(@TempDir Path dir) throws Exception {
        Path original = dir.resolve("original");
        try (Omnigraph seeded = Omnigraph.init(services, original, CrashScenario.SCHEMA).block()) {
            load(seeded, "main", LoadMode.APPEND, CrashScenario.SEED.lines().toList());
            seeded.createBranch("feature", Optional.empty()).block();
            seeded.mutate("feature", "query z() { insert Person { name: \"Zed\", age: 5 } insert Knows { from: \"Zed\", to: \"Ada\" } }",
                    "z", Map.of(), WriteOptions.DEFAULT).block();
            load(seeded, "main", LoadMode.MERGE, List.of("{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":77}}"));
        }
        assertThat(CrashHarness.diedAt(MergeCrashMain.class, original, MergeCrashTest.Action.INTO_MAIN.name(),
                "branch_merge.after_commit:1=exit", dir.resolve("tmp"))).isTrue();
        copyRecoversItselfOnly(original, dir, Sidecar.WriterKind.BranchMerge, RecoveryRecord.Kind.RolledBack);
    }

    @Test
    void anIndexEnsureKilledAfterConfirming(@TempDir Path dir) throws Exception {
        Path original = dir.resolve("original");
        try (Omnigraph graph = Omnigraph.init(services, original, IndexCrashTest.LOADED).block()) {
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                lines.add("{\"type\":\"Doc\",\"data\":{\"slug\":\"d" + i + "\",\"title\":\"t " + i + "\",\"rank\":" + i + "}}");
            }
            load(graph, "main", LoadMode.APPEND, lines);
            graph.applySchema(IndexCrashTest.SCHEMA, false, Optional.empty()).block();
        }
        assertThat(CrashHarness.diedAt(IndexCrashMain.class, original, "main", "ensure_indices.after_confirm=exit",
                dir.resolve("tmp"))).isTrue();
        copyRecoversItselfOnly(original, dir, Sidecar.WriterKind.EnsureIndices, RecoveryRecord.Kind.RolledForward);
    }

    @Test
    void anOptimizeKilledAfterItsFirstCompaction(@TempDir Path dir) throws Exception {
        Path original = dir.resolve("original");
        try (Omnigraph seeded = Omnigraph.init(services, original, CrashScenario.SCHEMA).block()) {
            load(seeded, "main", LoadMode.APPEND, CrashScenario.SEED.lines().toList());
            for (String line : List.of("{\"type\":\"Person\",\"data\":{\"name\":\"Dee\",\"age\":3}}",
                    "{\"type\":\"Person\",\"data\":{\"name\":\"Eve\",\"age\":4}}",
                    "{\"type\":\"Note\",\"data\":{\"id\":\"n2\",\"text\":\"two\"}}")) {
                load(seeded, "main", LoadMode.APPEND, List.of(line));
            }
        }
        dev.omnigraph.storage.testing.ChildJvm.Finished child = dev.omnigraph.storage.testing.ChildJvm.run(
                OptimizeCrashMain.class, dir.resolve("tmp"), List.of(original.toString()),
                List.of("OMNIGRAPH_FAILPOINTS=optimize.after_compact:1=exit"), java.time.Duration.ofSeconds(120));
        assertThat(child.exitValue()).as(child.output()).isEqualTo(dev.omnigraph.storage.Failpoints.EXIT_CODE);
        copyRecoversItselfOnly(original, dir, Sidecar.WriterKind.Optimize, RecoveryRecord.Kind.RolledForward);
    }

    /** Copies {@code original}, recovers the copy, checks the original untouched, then recovers the original. */
    static void copyRecoversItselfOnly(Path original, Path dir, Sidecar.WriterKind kind, RecoveryRecord.Kind outcome)
            throws Exception {
        List<Sidecar> pending = new SidecarStore(services.objectStore(original)).list().collectList().block();
        assertThat(pending).singleElement().satisfies(sidecar -> {
            assertThat(sidecar.writerKind()).isEqualTo(kind);
            assertThat(sidecar.tables()).allSatisfy(pin -> assertThat(pin.tablePath()).as("relative to the root")
                    .matches("(nodes|edges)/[0-9a-f]{16}-[0-9a-f]{16}"));
        });
        Path copy = dir.resolve("copy");
        CrashHarness.copy(original, copy);
        Map<String, String> untouched = CrashHarness.digests(original);
        CrashHarness.GraphState copied;
        try (Omnigraph graph = Omnigraph.open(services, copy, OpenMode.READ_WRITE).block()) {
            assertRecovered(graph, pending.get(0), outcome);
            copied = CrashHarness.state(graph, "main", services);
        }
        assertThat(CrashHarness.digests(original)).as("the original, after its copy recovered").isEqualTo(untouched);
        try (Omnigraph graph = Omnigraph.open(services, original, OpenMode.READ_WRITE).block()) {
            assertRecovered(graph, pending.get(0), outcome);
            assertThat(CrashHarness.state(graph, "main", services).rows()).as("both recovered alike")
                    .isEqualTo(copied.rows());
        }
    }

    static void assertRecovered(Omnigraph graph, Sidecar pending, RecoveryRecord.Kind outcome) {
        assertThat(HandleInternals.of(graph).pendingSidecars().collectList().block()).isEmpty();
        assertThat(graph.recoveries().collectList().block()).singleElement().satisfies(row -> {
            assertThat(row.operationId()).isEqualTo(pending.operationId());
            assertThat(row.kind()).isEqualTo(outcome);
        });
    }
}
