package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.internal.HandleInternals;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.recovery.RecoveryAudit;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.recovery.SidecarRecovery;
import dev.omnigraph.recovery.SidecarStore;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The read-write open's bulk sweep over four pending sidecars ({@link StrandedGraph}): what it does in one run,
 * that it refuses before touching anything, and that a child JVM killed at any step of it leaves a graph the next
 * open takes to exactly the same end state, with one audit row per sidecar and one rollback commit.
 */
@Execution(ExecutionMode.CONCURRENT)
class BulkSweepCrashTest {
    static StorageServices services;
    static CrashHarness.GraphState swept;

    @TempDir
    static Path scratch;

    @BeforeAll
    static void start() throws Exception {
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
        // Sidecars name their tables by absolute path, so every case builds its own graph instead of copying one.
        Path reference = scratch.resolve("reference");
        StrandedGraph.build(services, reference);
        Omnigraph opened = Omnigraph.open(services, reference, OpenMode.READ_WRITE).block();
        swept = CrashHarness.state(opened, services);
        opened.close();
    }

    @AfterAll
    static void stop() {
        services.tables().close();
    }

    static Map<String, Long> kinds(Omnigraph graph) {
        return graph.recoveries().collect(Collectors.groupingBy(record -> record.kind().name(), Collectors.counting())).block();
    }

    static long recoveryCommits(Omnigraph graph) {
        return graph.commits("main").filter(commit -> commit.actorId().equals(Optional.of(SidecarRecovery.RECOVERY_ACTOR)))
                .count().block();
    }

    /** Every sidecar resolved: one audit row each, one rollback commit for all, nothing pending. */
    static void assertSwept(Omnigraph graph) {
        assertThat(CrashHarness.state(graph, services)).isEqualTo(swept);
        assertThat(HandleInternals.of(graph).pendingSidecars().collectList().block()).isEmpty();
        assertThat(kinds(graph)).isEqualTo(Map.of("RolledForward", 1L, "RolledBack", 3L));
        assertThat(graph.recoveries().map(RecoveryRecord::operationId).distinct().count().block()).isEqualTo(4);
        assertThat(recoveryCommits(graph)).isEqualTo(1);
    }

    @Test
    void oneOpenRollsTheConfirmedWriteForwardAndTheRestBackInOnePublishAndOneAuditAppend(@TempDir Path dir) throws Exception {
        Path root = dir.resolve("graph");
        StrandedGraph.build(services, root);
        Omnigraph reader = Omnigraph.open(services, root, OpenMode.READ_ONLY).block();
        assertThat(HandleInternals.of(reader).pendingSidecars().collectList().block()).hasSize(StrandedGraph.SIDECARS);

        Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
        assertSwept(graph);
        Map<String, List<String>> rows = swept.rows();
        assertThat(rows.get("node:B")).singleElement().asString().contains("name=b");
        for (String rolledBack : List.of("node:A", "node:C", "node:D", "node:E")) {
            assertThat(rows.get(rolledBack)).as(rolledBack).isEmpty();
        }
        // The only user commit besides init is the rolled-forward write, even though it was not the oldest.
        assertThat(swept.userCommits()).hasSize(2);
        // One append to the audit table: its creation makes version 1 (Lance 7 needs no config commit), the append 2.
        assertThat(services.tables().head(TableRef.main(root + "/" + RecoveryAudit.DIRECTORY)).block()).isEqualTo(2);
        assertThat(HandleInternals.of(reader).pendingSidecars().collectList().block()).isEmpty();
        graph.close();
    }

    @Test
    void aSidecarTheSweepMustRefuseFailsTheOpenBeforeAnythingIsTouched(@TempDir Path dir) throws Exception {
        Path root = dir.resolve("graph");
        StrandedGraph.build(services, root);
        String refused = Ulid.next();
        new SidecarStore(services.objectStore(root)).write(new Sidecar(Sidecar.SCHEMA_VERSION, refused, "0", null, "ops",
                Sidecar.WriterKind.Mutation, List.of(), null)).block(); // no exact payload: unrecoverable
        Omnigraph reader = Omnigraph.open(services, root, OpenMode.READ_ONLY).block();
        CrashHarness.GraphState before = CrashHarness.state(reader, services);

        assertThatThrownBy(() -> Omnigraph.open(services, root, OpenMode.READ_WRITE).block())
                .isInstanceOfSatisfying(RecoveryRequired.class, e -> assertThat(e.operationId()).isEqualTo(refused))
                .hasMessageContaining("Mutation");
        assertThat(HandleInternals.of(reader).pendingSidecars().collectList().block()).hasSize(StrandedGraph.SIDECARS + 1);
        assertThat(reader.recoveries().collectList().block()).isEmpty();
        assertThat(CrashHarness.state(reader, services)).isEqualTo(before);
        assertThat(recoveryCommits(reader)).isZero();

        Files.delete(root.resolve(SidecarStore.key(refused)));
        Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
        assertSwept(graph);
        graph.close();
    }

    static Stream<String> sweepCrashes() {
        return Stream.of(FailpointCatalog.SWEEP_AFTER_CLASSIFY, FailpointCatalog.SWEEP_AFTER_FORWARD_PUBLISH,
                FailpointCatalog.SIDECAR_WRITE + "=exit@2", FailpointCatalog.SWEEP_AFTER_PLANS,
                FailpointCatalog.SWEEP_AFTER_RESTORE + "1", FailpointCatalog.SWEEP_AFTER_RESTORE + StrandedGraph.RESTORES,
                FailpointCatalog.SWEEP_AFTER_RESTORES, FailpointCatalog.SWEEP_AFTER_PUBLISH, FailpointCatalog.AUDIT_RECORD,
                FailpointCatalog.SWEEP_AFTER_AUDIT, FailpointCatalog.SIDECAR_DELETE + "=exit@2",
                FailpointCatalog.SWEEP_AFTER_DELETE + "1", FailpointCatalog.SWEEP_AFTER_DELETE + (StrandedGraph.SIDECARS - 1));
    }

    @ParameterizedTest(name = "sweep killed at {0}")
    @MethodSource("sweepCrashes")
    void aSweepKilledAtAnyStepIsFinishedByTheNextOpen(String point, @TempDir Path dir) throws Exception {
        Path root = dir.resolve("graph");
        StrandedGraph.build(services, root);
        String spec = point.contains("=") ? point : point + "=exit";
        CrashHarness.ChildRun run = CrashHarness.runChild(root, "OPEN", spec, dir.resolve("tmp"));
        assertThat(run.died()).as(run.output()).isTrue();

        Omnigraph reopened = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
        assertSwept(reopened);
        reopened.close();
    }
}
