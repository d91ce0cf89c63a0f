package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static dev.omnigraph.engine.GraphTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.maintain.Repair;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** In-process recovery: compensation of a writer's own failure, the write-entry healer, the sweep and repair. */
class RecoveryTest extends ConstrainedGraphTest {
    static final String QUERIES = """
            query pair($a: String, $b: String) {
                insert Person { name: $a }
                insert Person { name: $b }
                insert Knows { from: $a, to: $b }
            }
            query note($t: String) { insert Note { text: $t } }
            """;


    @BeforeEach
    void seed() {
        graph.load("main", LoadMode.APPEND, ndjson("{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}"), LoadOptions.DEFAULT).block();
    }

    WriteOutcome pair(String a, String b) {
        return graph.mutate("main", QUERIES, "pair", Map.of("a", a, "b", b), WriteOptions.DEFAULT).block(Duration.ofSeconds(60));
    }

    List<Object> ids(String tableKey) {
        return rows(graph, tableKey).stream().map(row -> row.get(tableKey.startsWith("edge") ? "src" : "id")).toList();
    }

    @Test
    void anErrorBeforePublishRollsBackTheWritersOwnEffectsAndReturnsTheError() {
        for (String point : List.of("mutation.after_arm", "mutation.after_commit:1", "mutation.after_commit:2",
                "mutation.after_confirm")) {
            graph.failpoints().arm(point, new Failpoints.Action.Error());
            assertThatThrownBy(() -> pair("Bob", "Cy")).as(point).isInstanceOf(StorageFault.class).hasMessageContaining(point);
            graph.failpoints().disarm(point);
            assertThat(ids("node:Person")).as(point).containsExactly("Ada");
            assertThat(ids("edge:Knows")).as(point).isEmpty();
            assertThat(graph.sidecars().list().collectList().block()).as(point).isEmpty();
        }
        List<RecoveryRecord> audit = graph.recoveries().collectList().block();
        assertThat(audit).hasSize(4).allSatisfy(record -> assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack));
        assertThat(audit.get(0).graphCommitId()).isEmpty(); // after_arm: nothing had landed, nothing published
        assertThat(audit.get(1).graphCommitId()).isPresent();
        assertThat(audit.get(1).recoveryForActor()).isEmpty();
        GraphCommit rollback = graph.commit(audit.get(1).graphCommitId().orElseThrow()).block();
        assertThat(rollback.actorId()).contains("omnigraph:recovery");
        assertThat(pair("Bob", "Cy").commit()).isPresent();
        assertThat(ids("node:Person")).containsExactly("Ada", "Bob", "Cy");
    }

    @Test
    void anErrorAfterPublishKeepsTheDurableWrite() {
        for (String point : List.of("mutation.after_publish", "mutation.before_sidecar_delete")) {
            String name = point.endsWith("publish") ? "Bob" : "Cy";
            graph.failpoints().arm(point, new Failpoints.Action.Error());
            WriteOutcome outcome = graph.mutate("main", QUERIES, "note", Map.of("t", name), WriteOptions.DEFAULT).block();
            graph.failpoints().disarm(point);
            assertThat(outcome.commit()).as(point).isPresent();
            assertThat(graph.sidecars().list().collectList().block()).isEmpty();
        }
        assertThat(rows(graph, "node:Note")).hasSize(2);
        assertThat(graph.recoveries().collectList().block()).hasSize(2)
                .allSatisfy(record -> assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledForward));
    }

    @Test
    void whenCompensationFailsTheSidecarStaysTheBranchBlocksAndReopenRollsBack() {
        graph.failpoints().arm("mutation.after_commit:1", new Failpoints.Action.Error());
        graph.failpoints().arm("recovery.before_plan_write", new Failpoints.Action.Error());
        assertThatThrownBy(() -> pair("Bob", "Cy")).isInstanceOfSatisfying(RecoveryRequired.class,
                e -> assertThat(e.operationId()).isNotBlank());
        graph.failpoints().disarm("mutation.after_commit:1");
        graph.failpoints().disarm("recovery.before_plan_write");
        assertThat(graph.sidecars().list().collectList().block()).hasSize(1);
        // The healer only rolls forward; this one needs a rollback, so writes on main stay blocked.
        assertThatThrownBy(() -> pair("Dee", "Eve")).isInstanceOf(RecoveryRequired.class).hasMessageContaining("reopen");
        Omnigraph reopened = Omnigraph.open(services, graph.root(), OpenMode.READ_WRITE).block();
        assertThat(reopened.sidecars().list().collectList().block()).isEmpty();
        assertThat(ids("node:Person")).containsExactly("Ada");
        assertThat(reopened.recoveries().collectList().block()).singleElement()
                .satisfies(record -> assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack));
        assertThat(pair("Dee", "Eve").commit()).isPresent();
    }

    @Test
    void theWriteEntryHealerRollsAConfirmedWriteForward() {
        graph.failpoints().arm("mutation.after_confirm", new Failpoints.Action.Error());
        graph.failpoints().arm("recovery.before_plan_write", new Failpoints.Action.Error());
        assertThatThrownBy(() -> pair("Bob", "Cy")).isInstanceOf(RecoveryRequired.class);
        graph.failpoints().disarm("mutation.after_confirm");
        graph.failpoints().disarm("recovery.before_plan_write");
        String stuck = graph.sidecars().list().blockFirst().protocolV3().lineage().graphCommitId();
        // The next write heals first: the confirmed write is published with its original commit id, then this one lands.
        WriteOutcome next = graph.mutate("main", QUERIES, "note", Map.of("t", "after"), WriteOptions.DEFAULT).block();
        assertThat(next.commit().orElseThrow().parentIds()).containsExactly(stuck);
        assertThat(ids("node:Person")).containsExactly("Ada", "Bob", "Cy");
        assertThat(graph.recoveries().collectList().block()).singleElement().satisfies(record -> {
            assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledForward);
            assertThat(record.graphCommitId()).contains(stuck);
        });
    }

    @Test
    void recoveryReenteredAfterAuditingRecordsExactlyOneRow() {
        graph.failpoints().arm("mutation.after_commit:1", new Failpoints.Action.Error());
        graph.failpoints().arm("recovery.after_audit", new Failpoints.Action.Error());
        assertThatThrownBy(() -> pair("Bob", "Cy")).isInstanceOf(RecoveryRequired.class);
        graph.failpoints().disarm("mutation.after_commit:1");
        graph.failpoints().disarm("recovery.after_audit");
        assertThat(graph.sidecars().list().collectList().block()).hasSize(1);
        Omnigraph.open(services, graph.root(), OpenMode.READ_WRITE).block();
        assertThat(graph.sidecars().list().collectList().block()).isEmpty();
        assertThat(graph.recoveries().collectList().block()).hasSize(1);
        assertThat(ids("node:Person")).containsExactly("Ada");
    }

    @Test
    void repairClassifiesAnUntrackedAppendAsUnverifiedAndPublishesItOnlyWhenForced() {
        TableInfo person = graph.snapshot(ReadTarget.main()).block().table("node:Person").orElseThrow();
        TableRef ref = new TableRef(graph.root().resolve(person.path()).toString(), person.lanceBranch());
        var base = services.tables().open(ref, OptionalLong.of(person.version())).block();
        services.tables().commitStaged(services.tables()
                .stageAppend(base, List.of(Map.of("id", "Ghost", "name", "Ghost")), Map.of()).block()).block();

        assertThatThrownBy(() -> pair("Bob", "Cy")).isInstanceOf(Conflict.class)
                .hasMessageContaining("omnigraph repair <root>").hasMessageContaining("--force --confirm");
        List<Repair.Drift> report = graph.repair(false, false).block();
        assertThat(report).singleElement().satisfies(drift -> {
            assertThat(drift.tableKey()).isEqualTo("node:Person");
            assertThat(drift.head()).isEqualTo(person.version() + 1);
            assertThat(drift.kind()).isEqualTo(Repair.Kind.UNVERIFIED);
            assertThat(drift.operations()).containsExactly("Append");
            assertThat(drift.publishedNow()).isFalse();
        });
        assertThat(graph.repair(true, false).block()).singleElement()
                .satisfies(drift -> assertThat(drift.publishedNow()).isFalse());
        assertThatThrownBy(() -> graph.repair(false, true).block()).isInstanceOf(BadRequest.class);
        assertThat(graph.repair(true, true).block()).singleElement()
                .satisfies(drift -> assertThat(drift.publishedNow()).isTrue());
        assertThat(graph.repair(false, false).block()).isEmpty();
        assertThat(ids("node:Person")).containsExactly("Ada", "Ghost"); // published forward, never rewritten
        assertThat(pair("Bob", "Cy").commit()).isPresent();
    }

    @Test
    void repairRefusesWhileASidecarIsPending() {
        graph.failpoints().arm("mutation.after_commit:1", new Failpoints.Action.Error());
        graph.failpoints().arm("recovery.before_plan_write", new Failpoints.Action.Error());
        assertThatThrownBy(() -> pair("Bob", "Cy")).isInstanceOf(RecoveryRequired.class);
        graph.failpoints().disarm("mutation.after_commit:1");
        graph.failpoints().disarm("recovery.before_plan_write");
        assertThatThrownBy(() -> graph.repair(false, false).block()).isInstanceOf(Conflict.class).hasMessageContaining("sidecar");
    }
}
