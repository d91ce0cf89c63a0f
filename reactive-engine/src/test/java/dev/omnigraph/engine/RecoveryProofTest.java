package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static dev.omnigraph.engine.GraphTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.manifest.ExpectedHead;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.PublishRequest;
import dev.omnigraph.storage.manifest.TableDelta;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Recovery finalizes a sidecar only on the commit it proves (issue 30, item 5): a visible commit must carry exactly
 * the write's intended delta; both outcomes visible, or a visible commit with another delta, is an
 * InvariantViolation that every entry point refuses, keeping the sidecar. Also the recovery branches that had no
 * test: rollback of a confirmed write whose authority changed, and the audit row of a roll-forward (exact
 * to_version, original actor).
 */
class RecoveryProofTest extends ConstrainedGraphTest {
    static final String QUERIES = RecoveryTest.QUERIES;

    String seedCommit;

    @BeforeEach
    void seed() {
        WriteOutcome seeded = graph.load("main", LoadMode.APPEND, ndjson("{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}"),
                LoadOptions.DEFAULT).block();
        seedCommit = seeded.commit().orElseThrow().id();
    }

    WriteOutcome pair(Omnigraph on, String a, String b, String actor) {
        return on.mutate("main", QUERIES, "pair", Map.of("a", a, "b", b),
                new WriteOptions(Optional.of(actor), Optional.empty())).block(Duration.ofSeconds(60));
    }

    List<Object> ids(String tableKey) {
        return rows(graph, tableKey).stream().map(row -> row.get(tableKey.startsWith("edge") ? "src" : "id")).toList();
    }

    /** A published write whose sidecar delete failed: the sidecar stays, its commit is visible. */
    Sidecar publishedButPending() {
        graph.failpoints().arm("recovery.sidecar_delete", new Failpoints.Action.Error());
        pair(graph, "Bob", "Cy", "alice");
        graph.failpoints().disarm("recovery.sidecar_delete");
        List<Sidecar> pending = graph.sidecars().list().collectList().block();
        assertThat(pending).as("the sidecar outlived its publish").hasSize(1);
        return pending.get(0);
    }

    void rewrite(Sidecar sidecar, UnaryOperator<Sidecar.ProtocolV3> change) {
        graph.sidecars().write(sidecar.withPayload(sidecar.tables(), change.apply(sidecar.protocolV3()))).block();
    }

    static Sidecar.ProtocolV3 withIds(Sidecar.ProtocolV3 p, String commitId, String rollbackId) {
        Sidecar.Lineage l = p.lineage();
        return new Sidecar.ProtocolV3(p.authority(), new Sidecar.Lineage(commitId, l.branch(), l.actorId(), l.createdAt(),
                l.mergedParentCommitId(), l.operation(), l.idempotency()), rollbackId, p.effectPhase(), p.effects(),
                p.intendedDelta(), p.rollbackRestores());
    }

    void assertRefusedAsInvariantViolation(Sidecar sidecar) {
        // The write-entry healer and the read-write open both refuse it, naming it; nothing is resolved silently.
        assertThatThrownBy(() -> graph.mutate("main", QUERIES, "note", Map.of("t", "x"), WriteOptions.DEFAULT).block())
                .isInstanceOf(RecoveryRequired.class);
        assertThatThrownBy(() -> Omnigraph.open(services, graph.root(), OpenMode.READ_WRITE).block())
                .isInstanceOf(RecoveryRequired.class)
                .hasMessageContaining(sidecar.operationId())
                .hasMessageContaining("InvariantViolation");
        assertThat(graph.sidecars().reload().collectList().block()).as("kept for an operator").hasSize(1);
        assertThat(graph.recoveries().collectList().block()).as("no audit row: nothing was decided").isEmpty();
    }

    @Test
    void aPublishedWriteIsFinalizedWithTheDeltasItsCommitPublished() {
        Sidecar pending = publishedButPending();
        GraphCommit published = graph.commit(pending.protocolV3().lineage().graphCommitId()).block();
        graph.mutate("main", QUERIES, "note", Map.of("t", "after"), WriteOptions.DEFAULT).block();
        assertThat(graph.sidecars().list().collectList().block()).isEmpty();
        RecoveryRecord record = graph.recoveries().blockFirst();
        assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledForward);
        assertThat(record.graphCommitId()).contains(published.id());
        assertThat(record.recoveryForActor()).contains("alice");
        assertThat(record.tables()).extracting(RecoveryRecord.TableOutcome::tableKey, RecoveryRecord.TableOutcome::fromVersion,
                        RecoveryRecord.TableOutcome::toVersion)
                .containsExactlyInAnyOrderElementsOf(published.deltas().stream()
                        .map(d -> org.assertj.core.groups.Tuple.tuple(d.tableKey(), d.fromVersion(), d.toVersion())).toList());
    }

    @Test
    void bothOutcomesVisibleIsAnInvariantViolationLeftForAnOperator() {
        Sidecar pending = publishedButPending();
        // Its rollback id now names a commit that is visible too (the seed's): the two outcomes contradict.
        rewrite(pending, p -> withIds(p, p.lineage().graphCommitId(), seedCommit));
        assertRefusedAsInvariantViolation(pending);
        assertThat(ids("node:Person")).as("nothing undone").containsExactly("Ada", "Bob", "Cy");
    }

    @Test
    void aVisibleCommitWithAnotherDeltaIsNotFinalizedAsTheWrite() {
        Sidecar pending = publishedButPending();
        // Its commit id now names the seed load's commit: visible, but it moved other tables from other pins.
        rewrite(pending, p -> withIds(p, seedCommit, p.rollbackGraphCommitId()));
        assertRefusedAsInvariantViolation(pending);
    }

    @Test
    void aRollbackCommitThatMovedTheTablesFromOtherPinsIsNotFinalizedAsTheRollback() {
        Sidecar pending = publishedButPending();
        String original = pending.protocolV3().lineage().graphCommitId();
        // A sidecar naming a fresh commit id (not visible) and, as its rollback, the seed load (which moved Person
        // from another pin): the rollback is not proved.
        rewrite(pending, p -> withIds(p, Ulid.next(), seedCommit));
        assertThat(graph.commit(original).block().deltas()).extracting(TableDelta::tableKey).contains("node:Person");
        assertRefusedAsInvariantViolation(pending);
    }

    @Test
    void aConfirmedWriteWhoseHeadMovedIsRolledBackAndTheWinnerKept() {
        graph.failpoints().arm("mutation.before_manifest_commit", new Failpoints.Action.Error());
        graph.failpoints().arm("recovery.before_plan_write", new Failpoints.Action.Error());
        assertThatThrownBy(() -> pair(graph, "Bob", "Cy", "alice")).isInstanceOf(RecoveryRequired.class);
        graph.failpoints().disarm("mutation.before_manifest_commit");
        graph.failpoints().disarm("recovery.before_plan_write");
        Sidecar pending = graph.sidecars().list().blockFirst();
        assertThat(pending.protocolV3().effectPhase()).isEqualTo(Sidecar.EffectPhase.EffectsConfirmed);
        // Another commit lands on main (as another process would), so the write's captured head is gone.
        String winner = Ulid.next();
        graph.publisher().publish(new PublishRequest("main", new ExpectedHead.Exact(Optional.of(seedCommit)),
                Optional.empty(), Map.of(), List.of(), winner, Optional.empty(), Optional.of("bob"), 1L, "foreign")).block();

        Omnigraph reopened = Omnigraph.open(services, graph.root(), OpenMode.READ_WRITE).block();
        assertThat(reopened.sidecars().list().collectList().block()).isEmpty();
        assertThat(ids("node:Person")).as("never rolled forward onto the winner").containsExactly("Ada");
        assertThat(ids("edge:Knows")).isEmpty();
        RecoveryRecord record = reopened.recoveries().blockFirst();
        assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack);
        assertThat(record.recoveryForActor()).contains("alice");
        GraphCommit rollback = reopened.commit(record.graphCommitId().orElseThrow()).block();
        assertThat(rollback.parentIds()).as("the rollback publishes on top of the winner").containsExactly(winner);
        assertThat(rollback.actorId()).contains("omnigraph:recovery");
        assertThat(record.tables()).allSatisfy(outcome -> assertThat(outcome.toVersion())
                .as("to_version is the logical rolled-back-to pin").isEqualTo(pending.tables().stream()
                        .filter(pin -> pin.tableKey().equals(outcome.tableKey())).findFirst().orElseThrow().expectedVersion()));
        reopened.close();
    }

    @Test
    void aRollForwardPublishesTheOriginalActorAndAuditsTheConfirmedVersions() {
        graph.failpoints().arm("mutation.before_manifest_commit", new Failpoints.Action.Error());
        graph.failpoints().arm("recovery.before_plan_write", new Failpoints.Action.Error());
        assertThatThrownBy(() -> pair(graph, "Bob", "Cy", "alice")).isInstanceOf(RecoveryRequired.class);
        graph.failpoints().disarm("mutation.before_manifest_commit");
        graph.failpoints().disarm("recovery.before_plan_write");
        Sidecar pending = graph.sidecars().list().blockFirst();

        Omnigraph reopened = Omnigraph.open(services, graph.root(), OpenMode.READ_WRITE).block();
        assertThat(ids("node:Person")).containsExactly("Ada", "Bob", "Cy");
        GraphCommit forward = reopened.commit(pending.protocolV3().lineage().graphCommitId()).block();
        assertThat(forward.actorId()).as("the interrupted writer's actor").contains("alice");
        RecoveryRecord record = reopened.recoveries().blockFirst();
        assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledForward);
        assertThat(record.recoveryForActor()).contains("alice");
        for (Sidecar.TableUpdate update : pending.protocolV3().intendedDelta().tableUpdates()) {
            assertThat(record.tables()).as(update.tableKey()).contains(new RecoveryRecord.TableOutcome(update.tableKey(),
                    update.expectedVersion(), update.confirmed().tableVersion()));
            assertThat(EngineInternals.pins(reopened).get(update.tableKey()).version())
                    .isEqualTo(update.confirmed().tableVersion());
        }
        reopened.close();
    }
}
