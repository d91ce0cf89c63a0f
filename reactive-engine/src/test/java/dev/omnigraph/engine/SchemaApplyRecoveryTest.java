package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.manifest.TableEntry;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Schema-apply recovery to the v7 rules (issue 30, item 3): every table effect proved by transaction identity
 * before anything moves (a buried effect fails closed), the restore plan saved in the sidecar before the first
 * restore (a recovery interrupted after a restore landed does not restore again), an audit row per outcome, and a
 * pending schema apply as a graph-wide barrier (writers of every branch, branch create and delete).
 */
class SchemaApplyRecoveryTest extends InitedGraphTestBase {
    static final String NEXT = SchemaEvolutionTest.BASE.replace("age: I32?", "age: I32?\n    nickname: String?");

    @Override
    String schema() {
        return SchemaEvolutionTest.BASE;
    }

    @BeforeEach
    void seed() {
        mutate("main", "add", "name", "Ada", "age", 36);
    }

    @AfterEach
    void idle() {
        assertThat(graph.gates().allIdle()).as("no gate left held").isTrue();
        graph.close();
    }

    void mutate(String branch, String query, Object... kv) {
        Map<String, Object> params = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) params.put((String) kv[i], kv[i + 1]);
        graph.mutate(branch, SchemaEvolutionTest.SEED, query, params, WriteOptions.DEFAULT).block(Duration.ofSeconds(60));
    }

    /** An apply that fails at {@code point} and whose own recovery fails at {@code recoveryPoint}: its sidecar stays. */
    Sidecar stuckApply(String point, String recoveryPoint) {
        graph.failpoints().arm(point, new Failpoints.Action.Error());
        graph.failpoints().arm(recoveryPoint, new Failpoints.Action.Error());
        assertThatThrownBy(() -> graph.applySchema(NEXT, false, Optional.of("alice")).block(Duration.ofSeconds(120)))
                .isInstanceOf(RecoveryRequired.class);
        graph.failpoints().disarm(point);
        graph.failpoints().disarm(recoveryPoint);
        return graph.sidecars().list().filter(s -> s.writerKind() == Sidecar.WriterKind.SchemaApply).blockFirst();
    }

    TableRef personRef() {
        TableEntry pin = EngineInternals.pins(graph).get("node:Person");
        return TableRef.main(dir.resolve("g").resolve(pin.location()).toString());
    }

    @Test
    void aPendingSchemaApplyBlocksEveryBranchAndBranchControlUntilRecovered() {
        Sidecar pending = stuckApply("schema_apply.after_arm", "recovery.audit_record");
        // Set up a branch beside it (an apply refuses to start with branches, so the intent is put back after).
        graph.sidecars().delete(pending.operationId()).block();
        graph.createBranch("dev", Optional.empty()).block();
        graph.sidecars().write(pending).block();

        assertThatThrownBy(() -> mutate("dev", "add", "name", "Bob", "age", 1))
                .isInstanceOfSatisfying(RecoveryRequired.class, e -> assertThat(e.operationId()).isEqualTo(pending.operationId()));
        assertThatThrownBy(() -> mutate("main", "add", "name", "Bob", "age", 1)).isInstanceOf(RecoveryRequired.class);
        assertThatThrownBy(() -> graph.createBranch("other", Optional.empty()).block()).isInstanceOf(RecoveryRequired.class);
        assertThatThrownBy(() -> graph.deleteBranch("dev").block()).isInstanceOf(RecoveryRequired.class);

        Omnigraph reopened = Omnigraph.open(services, graph.root(), OpenMode.READ_WRITE).block();
        assertThat(reopened.recoveries().collectList().block()).singleElement().satisfies(record -> {
            assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack);
            assertThat(record.operationId()).isEqualTo(pending.operationId());
            assertThat(record.recoveryForActor()).contains("alice");
        });
        mutate("dev", "add", "name", "Bob", "age", 1);
        graph.deleteBranch("dev").block();
        reopened.close();
    }

    @Test
    void aRestoreThatAlreadyLandedIsRecognisedNotRepeated() {
        long pinned = EngineInternals.pins(graph).get("node:Person").version();
        Sidecar pending = stuckApply("schema_apply.after_rewrites", "recovery.schema.after_restore:1");
        assertThat(pending.protocolV3().rollbackRestores()).as("the plan was saved before the restore").isNotEmpty();
        long head = services.tables().head(personRef()).block();
        assertThat(head).as("own overwrite, then own restore").isEqualTo(pinned + 2);

        Omnigraph.open(services, graph.root(), OpenMode.READ_WRITE).block().close();
        assertThat(services.tables().head(personRef()).block()).as("not restored a second time").isEqualTo(pinned + 2);
        assertThat(EngineInternals.pins(graph).get("node:Person").version()).isEqualTo(pinned + 2);
        assertThat(graph.schemaSource()).isEqualTo(SchemaEvolutionTest.BASE);
        assertThat(rows(graph, "node:Person")).singleElement().satisfies(row -> assertThat(row).doesNotContainKey("nickname"));
        assertThat(graph.recoveries().collectList().block()).singleElement().satisfies(record -> {
            assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack);
            assertThat(record.graphCommitId()).contains(pending.protocolV3().rollbackGraphCommitId());
            assertThat(record.tables()).contains(new RecoveryRecord.TableOutcome("node:Person", pinned + 1, pinned));
        });
        graph.applySchema(NEXT, false, Optional.empty()).block(Duration.ofSeconds(120));
        assertThat(rows(graph, "node:Person")).singleElement().satisfies(row -> assertThat(row).containsEntry("nickname", null));
    }

    @Test
    void aForeignCommitBuryingAnOwnedOverwriteFailsClosed() {
        long pinned = EngineInternals.pins(graph).get("node:Person").version();
        Sidecar pending = stuckApply("schema_apply.after_rewrites", "recovery.schema.after_plan");
        // Someone commits on top of the apply's overwrite: restoring through it would silently drop that commit.
        TableSnapshot latest = services.tables().open(personRef(), OptionalLong.empty()).block();
        StagedHandle foreign = services.tables().stageAppend(latest, List.of(Map.of("id", "Zed", "name", "Zed")), Map.of()).block();
        services.tables().commitStaged(foreign).block();

        assertThatThrownBy(() -> Omnigraph.open(services, graph.root(), OpenMode.READ_WRITE).block())
                .isInstanceOf(RecoveryRequired.class).hasMessageContaining("FOREIGN");
        assertThat(services.tables().head(personRef()).block()).as("nothing restored").isEqualTo(pinned + 2);
        assertThat(graph.sidecars().reload().collectList().block()).extracting(Sidecar::operationId)
                .containsExactly(pending.operationId());
        assertThat(graph.recoveries().collectList().block()).isEmpty();
    }

    @Test
    void aConfirmedApplyThatFailsIsCompensatedBackAndAuditedWithItsActor() {
        long pinned = EngineInternals.pins(graph).get("node:Person").version();
        graph.failpoints().arm("schema_apply.after_confirm", new Failpoints.Action.Error());
        assertThatThrownBy(() -> graph.applySchema(NEXT, false, Optional.of("alice")).block(Duration.ofSeconds(120)))
                .hasMessageContaining("schema_apply.after_confirm");
        graph.failpoints().disarm("schema_apply.after_confirm");
        assertThat(graph.schemaSource()).isEqualTo(SchemaEvolutionTest.BASE);
        assertThat(graph.sidecars().list().collectList().block()).isEmpty();
        assertThat(graph.recoveries().collectList().block()).singleElement().satisfies(record -> {
            assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack);
            assertThat(record.recoveryForActor()).contains("alice");
            assertThat(record.sidecarWriterKind()).isEqualTo("SchemaApply");
            assertThat(record.tables()).contains(new RecoveryRecord.TableOutcome("node:Person", pinned + 1, pinned));
            assertThat(graph.commit(record.graphCommitId().orElseThrow()).block().actorId()).contains("omnigraph:recovery");
        });
        graph.applySchema(NEXT, false, Optional.of("alice")).block(Duration.ofSeconds(120));
        assertThat(graph.schemaSource()).isEqualTo(NEXT);
    }
}
