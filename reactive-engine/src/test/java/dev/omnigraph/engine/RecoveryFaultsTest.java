package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static dev.omnigraph.engine.GraphTestSupport.rows;
import static dev.omnigraph.engine.GraphTestSupport.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.recovery.SidecarStore;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Recovery's own I/O failing: writing, deleting and listing sidecars and appending the audit row. Each outcome is
 * checked against the graph's rows, its commit list, the pending sidecars and the audit log, so nothing is lost,
 * doubled or silently skipped.
 */
class RecoveryFaultsTest extends ConstrainedGraphTest {
    static final Failpoints.Action ERROR = new Failpoints.Action.Error();


    @BeforeEach
    void seed() {
        graph.load("main", LoadMode.APPEND, ndjson("{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}"), LoadOptions.DEFAULT).block();
    }

    WriteOutcome pair(String a, String b) {
        return graph.mutate("main", RecoveryTest.QUERIES, "pair", Map.of("a", a, "b", b), WriteOptions.DEFAULT).block();
    }

    WriteOutcome note(String text) {
        return graph.mutate("main", RecoveryTest.QUERIES, "note", Map.of("t", text), WriteOptions.DEFAULT).block();
    }

    List<Object> people() {
        return rows(graph, "node:Person").stream().map(row -> row.get("id")).toList();
    }

    List<String> commitIds() {
        return graph.commits("main").map(GraphCommit::id).collectList().block();
    }

    List<dev.omnigraph.recovery.Sidecar> pending() {
        return graph.pendingSidecars().collectList().block();
    }

    @Test
    void aFailedSidecarWriteRefusesTheWriteBeforeAnyEffect() {
        Map<String, Long> before = versions(graph);
        List<String> commits = commitIds();
        graph.failpoints().arm(FailpointCatalog.SIDECAR_WRITE, ERROR);
        assertThatThrownBy(() -> pair("Bob", "Cy")).isInstanceOf(StorageFault.class)
                .hasMessageContaining(FailpointCatalog.SIDECAR_WRITE);
        graph.failpoints().disarm(FailpointCatalog.SIDECAR_WRITE);
        assertThat(versions(graph)).isEqualTo(before);
        assertThat(commitIds()).isEqualTo(commits);
        assertThat(pending()).isEmpty();
        assertThat(graph.recoveries().collectList().block()).isEmpty();
        assertThat(pair("Bob", "Cy").commit()).isPresent();
        assertThat(people()).containsExactly("Ada", "Bob", "Cy");
    }

    @Test
    void aFailedConfirmWriteBesideAPublishThatLandedKeepsTheWrite() {
        // The second sidecar write of the attempt is the confirm, after both tables were committed; the publish
        // beside it lands, so the write is durable and acknowledged, and its Armed sidecar is removed.
        graph.failpoints().arm(FailpointCatalog.SIDECAR_WRITE, new Failpoints.Action.OnHit(2, ERROR));
        assertThat(pair("Bob", "Cy").commit()).isPresent();
        graph.failpoints().disarm(FailpointCatalog.SIDECAR_WRITE);
        assertThat(people()).containsExactly("Ada", "Bob", "Cy");
        assertThat(rows(graph, "edge:Knows")).hasSize(1);
        assertThat(pending()).isEmpty();
        assertThat(graph.recoveries().collectList().block()).isEmpty();
    }

    @Test
    void aFailedConfirmWriteBesideAFailedPublishIsCompensatedWithEveryEffectUndone() {
        graph.failpoints().arm(FailpointCatalog.SIDECAR_WRITE, new Failpoints.Action.OnHit(2, ERROR));
        graph.failpoints().arm("mutation." + FailpointCatalog.BEFORE_MANIFEST_COMMIT, ERROR);
        // The confirmation's error is the one reported.
        assertThatThrownBy(() -> pair("Bob", "Cy")).isInstanceOf(StorageFault.class)
                .hasMessageContaining(FailpointCatalog.SIDECAR_WRITE);
        graph.failpoints().disarm(FailpointCatalog.SIDECAR_WRITE);
        graph.failpoints().disarm("mutation." + FailpointCatalog.BEFORE_MANIFEST_COMMIT);
        assertThat(people()).containsExactly("Ada");
        assertThat(rows(graph, "edge:Knows")).isEmpty();
        assertThat(pending()).isEmpty();
        assertThat(graph.recoveries().collectList().block()).singleElement()
                .satisfies(record -> assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack));
    }

    @Test
    void aConfirmWriteAndACompensationThatBothFailLeaveTheSidecarForTheNextOpen() {
        graph.failpoints().arm(FailpointCatalog.SIDECAR_WRITE, new Failpoints.Action.OnHit(2, ERROR));
        graph.failpoints().arm("mutation." + FailpointCatalog.BEFORE_MANIFEST_COMMIT, ERROR);
        graph.failpoints().arm("recovery.before_plan_write", ERROR);
        assertThatThrownBy(() -> pair("Bob", "Cy")).isInstanceOf(RecoveryRequired.class);
        graph.failpoints().disarm(FailpointCatalog.SIDECAR_WRITE);
        graph.failpoints().disarm("mutation." + FailpointCatalog.BEFORE_MANIFEST_COMMIT);
        graph.failpoints().disarm("recovery.before_plan_write");
        assertThat(pending()).hasSize(1);
        // Effects landed but were never confirmed: the write-entry healer may not roll them forward.
        assertThatThrownBy(() -> note("x")).isInstanceOf(RecoveryRequired.class);

        Omnigraph reopened = Omnigraph.open(services, graph.root(), OpenMode.READ_WRITE).block();
        assertThat(reopened.pendingSidecars().collectList().block()).isEmpty();
        assertThat(people()).containsExactly("Ada");
        assertThat(rows(graph, "edge:Knows")).isEmpty();
        assertThat(reopened.recoveries().collectList().block()).singleElement()
                .satisfies(record -> assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack));
        assertThat(note("x").commit()).isPresent();
    }

    @Test
    void aFailedDeleteAfterPublishIsSwallowedAndTheNextWriteHealsTheLeftover() {
        graph.failpoints().arm(FailpointCatalog.SIDECAR_DELETE, ERROR);
        GraphCommit paired = pair("Bob", "Cy").commit().orElseThrow();
        graph.failpoints().disarm(FailpointCatalog.SIDECAR_DELETE);
        assertThat(pending()).singleElement().satisfies(sidecar -> assertThat(sidecar.protocolV3().lineage()
                .graphCommitId()).isEqualTo(paired.id()));

        GraphCommit noted = note("x").commit().orElseThrow();
        assertThat(pending()).isEmpty();
        assertThat(people()).containsExactly("Ada", "Bob", "Cy");
        assertThat(rows(graph, "edge:Knows")).hasSize(1);
        assertThat(rows(graph, "node:Note")).hasSize(1);
        List<String> commits = commitIds();
        assertThat(commits).containsOnlyOnce(paired.id(), noted.id()).doesNotHaveDuplicates();
        assertThat(graph.recoveries().collectList().block()).singleElement().satisfies(record -> {
            assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledForward);
            assertThat(record.graphCommitId()).contains(paired.id());
        });
    }

    @Test
    void aLeftoverSidecarFromAFailedDeleteIsHealedByTheNextOpen() {
        graph.failpoints().arm(FailpointCatalog.SIDECAR_DELETE, ERROR);
        GraphCommit paired = pair("Bob", "Cy").commit().orElseThrow();
        graph.failpoints().disarm(FailpointCatalog.SIDECAR_DELETE);
        List<String> commits = commitIds();

        Omnigraph reopened = Omnigraph.open(services, graph.root(), OpenMode.READ_WRITE).block();
        assertThat(reopened.pendingSidecars().collectList().block()).isEmpty();
        assertThat(reopened.commits("main").map(GraphCommit::id).collectList().block()).isEqualTo(commits);
        assertThat(people()).containsExactly("Ada", "Bob", "Cy");
        assertThat(reopened.recoveries().collectList().block()).singleElement()
                .satisfies(record -> assertThat(record.graphCommitId()).contains(paired.id()));
    }

    @Test
    void aFailedListIsLoudNeverNoSidecars() {
        // A read-only handle holds no writer lock, so it lists the directory every time.
        Omnigraph reader = Omnigraph.open(services, graph.root(), OpenMode.READ_ONLY).block();
        reader.failpoints().arm(FailpointCatalog.SIDECAR_LIST, ERROR);
        assertThatThrownBy(() -> reader.pendingSidecars().collectList().block()).isInstanceOf(StorageFault.class)
                .hasMessageContaining(FailpointCatalog.SIDECAR_LIST);
        reader.failpoints().disarm(FailpointCatalog.SIDECAR_LIST);
        assertThat(reader.pendingSidecars().collectList().block()).isEmpty();
    }

    @Test
    void aReadWriteHandleWritesWithoutListingTheSidecarDirectory() {
        // Its view was loaded when the directory was first listed; a listing fault can no longer reach a write.
        graph.failpoints().arm(FailpointCatalog.SIDECAR_LIST, ERROR);
        assertThat(pair("Bob", "Cy").commit()).isPresent();
        assertThat(pending()).isEmpty();
        graph.failpoints().disarm(FailpointCatalog.SIDECAR_LIST);
    }

    @Test
    void anUnlistableRecoveryDirectoryRefusesWritesAndReadWriteOpens() throws Exception {
        // A real I/O fault, effective even as root: the sidecar directory is a regular file.
        Path recovery = graph.root().resolve(SidecarStore.DIRECTORY);
        Files.createDirectories(recovery.getParent());
        if (Files.isDirectory(recovery)) {
            Files.delete(recovery);
        }
        Files.writeString(recovery, "not a directory");
        Map<String, Long> before = versions(graph);
        // The open handle lists nothing: its write fails writing its sidecar, before any effect.
        assertThatThrownBy(() -> pair("Bob", "Cy")).isInstanceOf(StorageFault.class).hasMessageContaining("sidecar");
        assertThatThrownBy(() -> Omnigraph.open(services, graph.root(), OpenMode.READ_WRITE).block())
                .isInstanceOf(StorageFault.class).hasMessageContaining("not a directory");
        assertThat(versions(graph)).isEqualTo(before);
        Files.delete(recovery);
        assertThat(pair("Bob", "Cy").commit()).isPresent();
    }

    @Test
    void aFailedAuditAfterCompensationKeepsTheSidecarAndTheNextWriteFinalizesItOnce() {
        graph.failpoints().arm("mutation.after_commit:1", ERROR);
        graph.failpoints().arm(FailpointCatalog.AUDIT_RECORD, ERROR);
        assertThatThrownBy(() -> pair("Bob", "Cy")).isInstanceOf(RecoveryRequired.class)
                .hasMessageContaining(FailpointCatalog.AUDIT_RECORD);
        graph.failpoints().disarm("mutation.after_commit:1");
        graph.failpoints().disarm(FailpointCatalog.AUDIT_RECORD);
        // The effects were undone and the rollback published; only the audit row and the sidecar's removal are owed.
        assertThat(people()).containsExactly("Ada");
        assertThat(pending()).hasSize(1);
        assertThat(graph.recoveries().collectList().block()).isEmpty();
        List<String> commits = commitIds();

        assertThat(note("x").commit()).isPresent();
        assertThat(pending()).isEmpty();
        assertThat(people()).containsExactly("Ada");
        assertThat(commitIds()).hasSize(commits.size() + 1).containsAll(commits);
        assertThat(graph.recoveries().collectList().block()).singleElement().satisfies(record -> {
            assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack);
            assertThat(record.graphCommitId()).isPresent();
        });
    }

    @Test
    void aFailedAuditWhileHealingRefusesTheWriteAndARetryRollsForwardOnce() {
        graph.failpoints().arm(FailpointCatalog.SIDECAR_DELETE, ERROR);
        GraphCommit paired = pair("Bob", "Cy").commit().orElseThrow();
        graph.failpoints().disarm(FailpointCatalog.SIDECAR_DELETE);
        graph.failpoints().arm(FailpointCatalog.AUDIT_RECORD, ERROR);
        Map<String, Long> before = versions(graph);
        assertThatThrownBy(() -> note("x")).isInstanceOf(StorageFault.class)
                .hasMessageContaining(FailpointCatalog.AUDIT_RECORD);
        graph.failpoints().disarm(FailpointCatalog.AUDIT_RECORD);
        assertThat(versions(graph)).isEqualTo(before);
        assertThat(pending()).hasSize(1);

        assertThat(note("x").commit()).isPresent();
        assertThat(pending()).isEmpty();
        assertThat(people()).containsExactly("Ada", "Bob", "Cy");
        assertThat(rows(graph, "node:Note")).hasSize(1);
        assertThat(commitIds()).containsOnlyOnce(paired.id()).doesNotHaveDuplicates();
        assertThat(graph.recoveries().collectList().block()).singleElement()
                .satisfies(record -> assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledForward));
    }
}
