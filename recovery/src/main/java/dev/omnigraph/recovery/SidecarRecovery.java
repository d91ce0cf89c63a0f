package dev.omnigraph.recovery;

import dev.omnigraph.recovery.RecoveryRecord.TableOutcome;
import dev.omnigraph.recovery.Sidecar.RollbackRestore;
import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.recovery.Sidecar.Txn;
import dev.omnigraph.storage.CommittedVersion;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.TransactionIdentity;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.ExpectedHead;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.IdempotencyRecord;
import dev.omnigraph.storage.manifest.ManifestBatchPublisher;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.ManifestStore;
import dev.omnigraph.storage.manifest.PublishRequest;
import dev.omnigraph.storage.manifest.TableEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Decides and carries out the fate of one exact mutation/load sidecar from live state: finalize when its commit
 * (or its rollback commit) is already visible; roll forward when every effect is exactly the planned one at HEAD,
 * the effects were confirmed and the captured authority still holds; otherwise roll back its own effects (Lance
 * Restore to the pins, then one publish so manifest == HEAD); and fail closed on anything foreign or ambiguous.
 * Every finished recovery appends one audit row, then deletes the sidecar. The caller holds the gates.
 */
public final class SidecarRecovery {
    public static final String RECOVERY_ACTOR = "omnigraph:recovery";

    /** Which actions a caller allows. */
    public enum Mode {
        /** Read-write open: roll forward when possible, else roll back. */
        FULL,
        /** Write-entry healer: roll forward or finalize only; anything else is left for a read-write open. */
        ROLL_FORWARD_ONLY,
        /** A writer undoing its own failed attempt: finalize if published, else roll back. */
        COMPENSATE
    }

    /** What happened to the sidecar. */
    public sealed interface Outcome {
        record RolledForward(String commitId) implements Outcome {
        }

        record RolledBack(Optional<String> commitId) implements Outcome {
        }

        record OrphanDiscarded() implements Outcome {
        }

        /** Left in place (healer only); {@code reason} says what it needs. */
        record Deferred(String reason) implements Outcome {
        }

        /** The sidecar had already been resolved by someone else. */
        record AlreadyGone() implements Outcome {
        }
    }

    private final TableStorage tables;
    private final ManifestStore manifest;
    private final ManifestBatchPublisher publisher;
    private final SidecarStore sidecars;
    private final RecoveryAudit audit;
    private final Failpoints failpoints;

    public SidecarRecovery(TableStorage tables, ManifestStore manifest, ManifestBatchPublisher publisher,
                           SidecarStore sidecars, RecoveryAudit audit, Failpoints failpoints) {
        this.tables = tables;
        this.manifest = manifest;
        this.publisher = publisher;
        this.sidecars = sidecars;
        this.audit = audit;
        this.failpoints = failpoints;
    }

    public Mono<Outcome> recover(String operationId, Mode mode) {
        return sidecars.read(operationId).flatMap(found -> found.isEmpty()
                ? Mono.just(new Outcome.AlreadyGone())
                : recover(found.get(), mode));
    }

    private Mono<Outcome> recover(Sidecar sidecar, Mode mode) {
        if (sidecar.writerKind() == Sidecar.WriterKind.SchemaApply) {
            // Its delta (registrations, renames, tombstones) and contract promotion live with the schema applier.
            return refuse(sidecar, mode, "a schema apply is recovered by its own recovery at read-write open");
        }
        if (sidecar.protocolV3() == null) {
            return refuse(sidecar, mode, "its writer kind " + sidecar.writerKind() + " has no exact payload this build can recover");
        }
        String branch = GraphBranches.graphBranch(Optional.ofNullable(sidecar.branch()));
        Sidecar.ProtocolV3 payload = sidecar.protocolV3();
        return manifest.branchIdentity(branch)
                .map(Optional::of)
                .onErrorResume(NotFound.class, gone -> Mono.just(Optional.empty()))
                .flatMap(identity -> identity.isEmpty()
                        ? discardOrphan(sidecar)
                        : manifest.commitOn(branch, payload.lineage().graphCommitId()).flatMap(original -> original.isPresent()
                                ? finalizeForward(sidecar, original.get().id())
                                : manifest.commitOn(branch, payload.rollbackGraphCommitId()).flatMap(rollback -> rollback.isPresent()
                                        ? finalizeBack(sidecar, Optional.of(rollback.get().id()), List.of())
                                        : decide(sidecar, mode, branch, identity.get()))));
    }

    private Mono<Outcome> decide(Sidecar sidecar, Mode mode, String branch, BranchIdentity identity) {
        return manifest.load(branch).flatMap(state -> Flux.fromIterable(sidecar.tables())
                .concatMap(pin -> classify(sidecar, pin, state).map(found -> Map.entry(pin, found)))
                .collectList()
                .flatMap(classes -> {
                    Map<TablePin, Classified> byPin = new LinkedHashMap<>();
                    classes.forEach(entry -> byPin.put(entry.getKey(), entry.getValue()));
                    for (Map.Entry<TablePin, Classified> entry : byPin.entrySet()) {
                        TableClass found = entry.getValue().kind();
                        if (found == TableClass.FOREIGN || found == TableClass.INVARIANT_VIOLATION) {
                            return refuse(sidecar, mode, entry.getKey().tableKey() + " is " + found
                                    + " (HEAD " + entry.getValue().head() + ", expected " + entry.getKey().expectedVersion() + ")");
                        }
                    }
                    boolean allOwnAtHead = !byPin.isEmpty() && byPin.values().stream().allMatch(c -> c.kind() == TableClass.OWN_AT_HEAD);
                    boolean confirmed = sidecar.protocolV3().effectPhase() == Sidecar.EffectPhase.EffectsConfirmed;
                    if (mode != Mode.COMPENSATE && allOwnAtHead && confirmed && authorityHolds(sidecar, state, identity)) {
                        return rollForward(sidecar, branch, identity, state);
                    }
                    if (mode == Mode.ROLL_FORWARD_ONLY) {
                        return Mono.just(new Outcome.Deferred("operation " + sidecar.operationId()
                                + " must be rolled back; reopen the graph read-write to run recovery"));
                    }
                    return rollBack(sidecar, branch, state, byPin);
                }));
    }

    private record Classified(TableClass kind, long head) {
    }

    private Mono<Classified> classify(Sidecar sidecar, TablePin pin, ManifestState state) {
        TableRef ref = new TableRef(pin.tablePath(), Optional.ofNullable(pin.tableBranch()));
        long published = state.table(pin.tableKey()).map(TableEntry::version).orElse(0L);
        long expected = pin.expectedVersion();
        Txn planned = planned(sidecar, pin.tableKey());
        return tables.head(ref).flatMap(head -> {
            if (head < published) return Mono.just(new Classified(TableClass.INVARIANT_VIOLATION, head));
            if (published != expected) return Mono.just(new Classified(TableClass.FOREIGN, head));
            if (head == expected) return Mono.just(new Classified(TableClass.NO_MOVEMENT, head));
            if (head != expected + 1 && head != expected + 2) return Mono.just(new Classified(TableClass.FOREIGN, head));
            return isTransaction(ref, expected + 1, planned).flatMap(ownEffect -> {
                if (!ownEffect) return Mono.just(new Classified(TableClass.FOREIGN, head));
                if (head == expected + 1) return Mono.just(new Classified(TableClass.OWN_AT_HEAD, head));
                Optional<Txn> restore = restoreOf(sidecar, pin.tableKey());
                return restore.isEmpty() ? Mono.just(new Classified(TableClass.FOREIGN, head))
                        : isTransaction(ref, head, restore.get()).map(own -> new Classified(
                                own ? TableClass.OWN_COMPENSATED : TableClass.FOREIGN, head));
            });
        });
    }

    private Mono<Boolean> isTransaction(TableRef ref, long version, Txn expected) {
        return tables.transactionAt(ref, version).map(found -> found
                .map(identity -> identity.readVersion() == expected.readVersion() && identity.uuid().equals(expected.uuid()))
                .orElse(false));
    }

    private static boolean authorityHolds(Sidecar sidecar, ManifestState state, BranchIdentity live) {
        Sidecar.Authority captured = sidecar.protocolV3().authority();
        Sidecar.BranchIdentifier id = captured.branchIdentifier();
        BranchIdentity then = new BranchIdentity(id.name(), Optional.ofNullable(id.parent()), id.parentVersion(), id.createdAt());
        return then.equals(live) && state.head().equals(Optional.ofNullable(captured.graphHead()));
    }

    // ---- roll forward ----------------------------------------------------------------------------------------

    private Mono<Outcome> rollForward(Sidecar sidecar, String branch, BranchIdentity identity, ManifestState state) {
        Sidecar.ProtocolV3 payload = sidecar.protocolV3();
        Map<String, Long> expectedPins = new LinkedHashMap<>();
        List<TableEntry> updates = new ArrayList<>();
        for (Sidecar.TableUpdate update : payload.intendedDelta().tableUpdates()) {
            TableEntry pinned = state.table(update.tableKey()).orElseThrow(() -> new StorageFault(
                    "sidecar " + sidecar.operationId() + " names " + update.tableKey() + ", which the manifest no longer has", null));
            expectedPins.put(update.tableKey(), update.expectedVersion());
            updates.add(pinned.pinnedAt(update.confirmed().tableVersion(), Optional.ofNullable(update.tableBranch()),
                    update.confirmed().rowCount()));
        }
        Sidecar.Lineage lineage = payload.lineage();
        PublishRequest request = new PublishRequest(branch, new ExpectedHead.Exact(Optional.ofNullable(payload.authority().graphHead())),
                Optional.of(identity), expectedPins, updates, lineage.graphCommitId(), Optional.empty(),
                Optional.ofNullable(lineage.actorId()), lineage.createdAt(), lineage.operation(),
                Optional.ofNullable(lineage.idempotency()).map(record -> new IdempotencyRecord(record.key(),
                        record.requestHash(), record.affectedNodes(), record.affectedEdges(),
                        record.entitiesByTable() == null ? null : new java.util.TreeMap<>(record.entitiesByTable()))));
        return publisher.publish(request)
                .then(failpoints.hit("recovery.after_forward_publish"))
                .then(finalizeForward(sidecar, lineage.graphCommitId()));
    }

    private Mono<Outcome> finalizeForward(Sidecar sidecar, String commitId) {
        List<TableOutcome> outcomes = new ArrayList<>();
        for (Sidecar.TableUpdate update : sidecar.protocolV3().intendedDelta().tableUpdates()) {
            long to = update.confirmed() != null ? update.confirmed().tableVersion() : update.expectedVersion() + 1;
            outcomes.add(new TableOutcome(update.tableKey(), update.expectedVersion(), to));
        }
        return finish(sidecar, RecoveryRecord.Kind.RolledForward, Optional.of(commitId), outcomes)
                .thenReturn(new Outcome.RolledForward(commitId));
    }

    // ---- roll back -------------------------------------------------------------------------------------------

    private Mono<Outcome> rollBack(Sidecar sidecar, String branch, ManifestState state, Map<TablePin, Classified> byPin) {
        List<TablePin> toRestore = new ArrayList<>();
        List<TablePin> restored = new ArrayList<>();
        byPin.forEach((pin, found) -> {
            if (found.kind() == TableClass.OWN_AT_HEAD) toRestore.add(pin);
            if (found.kind() == TableClass.OWN_COMPENSATED) restored.add(pin);
        });
        if (toRestore.isEmpty() && restored.isEmpty()) {
            List<TableOutcome> untouched = byPin.keySet().stream()
                    .map(pin -> new TableOutcome(pin.tableKey(), pin.expectedVersion(), pin.expectedVersion())).toList();
            return finalizeBack(sidecar, Optional.empty(), untouched);
        }
        List<StagedHandle> allStaged = new java.util.concurrent.CopyOnWriteArrayList<>();
        return Flux.fromIterable(toRestore)
                .concatMap(pin -> tables.stageRestore(ref(pin), pin.expectedVersion())
                        .doOnNext(allStaged::add)
                        .map(handle -> Map.entry(pin, handle)))
                .collectList()
                .onErrorResume(error -> Flux.fromIterable(allStaged).concatMap(tables::discard).then(Mono.error(error)))
                .flatMap(staged -> recordPlan(sidecar, staged)
                        .then(commitRestores(staged))
                        .flatMap(landed -> countRestored(restored).map(already -> {
                            Map<String, CommittedVersion> all = new LinkedHashMap<>(landed);
                            all.putAll(already);
                            return all;
                        }))
                        .flatMap(restoredVersions -> publishRollback(sidecar, branch, state, restoredVersions)
                                .then(failpoints.hit("recovery.after_rollback_publish"))
                                .then(finalizeBack(sidecar, Optional.of(sidecar.protocolV3().rollbackGraphCommitId()),
                                        restoredVersions.entrySet().stream().map(e -> new TableOutcome(e.getKey(),
                                                e.getValue().version() - 1, pinOf(sidecar, e.getKey()).expectedVersion())).toList())))
                        .onErrorResume(error -> Flux.fromIterable(staged)
                                .concatMap(entry -> tables.discard(entry.getValue())).then(Mono.error(error))));
    }

    /** Persists the restore identities before the first restore, so a crash mid-rollback is recognised on re-entry. */
    private Mono<Void> recordPlan(Sidecar sidecar, List<Map.Entry<TablePin, StagedHandle>> staged) {
        List<RollbackRestore> restores = new ArrayList<>();
        Optional.ofNullable(sidecar.protocolV3().rollbackRestores()).ifPresent(restores::addAll);
        for (Map.Entry<TablePin, StagedHandle> entry : staged) {
            TransactionIdentity identity = entry.getValue().identity();
            restores.removeIf(existing -> existing.tableKey().equals(entry.getKey().tableKey()));
            restores.add(new RollbackRestore(entry.getKey().tableKey(), entry.getKey().expectedVersion(),
                    new Txn(identity.readVersion(), identity.uuid())));
        }
        Sidecar planned = sidecar.withPayload(sidecar.tables(), sidecar.protocolV3().withRollbackRestores(restores));
        return failpoints.hit("recovery.before_plan_write")
                .then(sidecars.write(planned))
                .then(failpoints.hit("recovery.after_plan_write"));
    }

    private Mono<Map<String, CommittedVersion>> commitRestores(List<Map.Entry<TablePin, StagedHandle>> staged) {
        Map<String, CommittedVersion> landed = new LinkedHashMap<>();
        return Flux.range(0, staged.size())
                .concatMap(index -> {
                    Map.Entry<TablePin, StagedHandle> entry = staged.get(index);
                    return tables.commitStaged(entry.getValue()).flatMap(committed -> {
                        if (!committed.isExactly(entry.getValue().identity())) {
                            return Mono.error(new StorageFault("restore of " + entry.getKey().tableKey() + " landed as "
                                    + committed + " instead of exactly on its read version", null));
                        }
                        landed.put(entry.getKey().tableKey(), committed);
                        return failpoints.hit("recovery.after_restore:" + (index + 1));
                    });
                })
                .then(Mono.fromSupplier(() -> landed));
    }

    /** Tables a previous, interrupted recovery already restored: their HEAD is the restore. */
    private Mono<Map<String, CommittedVersion>> countRestored(List<TablePin> restored) {
        return Flux.fromIterable(restored)
                .concatMap(pin -> tables.open(ref(pin), java.util.OptionalLong.empty())
                        .map(snapshot -> Map.entry(pin.tableKey(), new CommittedVersion(snapshot.version(),
                                new TransactionIdentity(snapshot.version() - 1, ""), snapshot.rowCount()))))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue);
    }

    private Mono<Void> publishRollback(Sidecar sidecar, String branch, ManifestState state,
                                       Map<String, CommittedVersion> restoredVersions) {
        Map<String, Long> expectedPins = new LinkedHashMap<>();
        List<TableEntry> updates = new ArrayList<>();
        restoredVersions.forEach((tableKey, committed) -> {
            TableEntry pinned = state.table(tableKey).orElseThrow();
            expectedPins.put(tableKey, pinned.version());
            updates.add(pinned.pinnedAt(committed.version(), pinned.lanceBranch(), committed.rowCount()));
        });
        PublishRequest request = new PublishRequest(branch, new ExpectedHead.Exact(state.head()), Optional.empty(),
                expectedPins, updates, sidecar.protocolV3().rollbackGraphCommitId(), Optional.empty(),
                Optional.of(RECOVERY_ACTOR), nowMicros(), "recovery:rollback");
        return publisher.publish(request).then();
    }

    private Mono<Outcome> finalizeBack(Sidecar sidecar, Optional<String> commitId, List<TableOutcome> outcomes) {
        return finish(sidecar, RecoveryRecord.Kind.RolledBack, commitId, outcomes)
                .thenReturn(new Outcome.RolledBack(commitId));
    }

    private Mono<Outcome> discardOrphan(Sidecar sidecar) {
        return finish(sidecar, RecoveryRecord.Kind.OrphanedBranchDiscarded, Optional.empty(), List.of())
                .thenReturn(new Outcome.OrphanDiscarded());
    }

    /**
     * Audit (idempotent), then delete the sidecar: the last two steps of every outcome. A failed audit append
     * fails the recovery and keeps the sidecar, so the next heal or open retries: by then the outcome's commit is
     * visible, so the retry only finalizes (audit once, delete) and never repeats an effect.
     */
    private Mono<Void> finish(Sidecar sidecar, RecoveryRecord.Kind kind, Optional<String> commitId, List<TableOutcome> outcomes) {
        RecoveryRecord record = new RecoveryRecord(commitId, kind, Optional.ofNullable(sidecar.actorId()),
                sidecar.operationId(), sidecar.writerKind().name(), outcomes, Instant.now());
        return failpoints.hit(FailpointCatalog.AUDIT_RECORD)
                .then(audit.record(record))
                .then(failpoints.hit("recovery.after_audit"))
                .then(sidecars.delete(sidecar.operationId()))
                .then();
    }

    private Mono<Outcome> refuse(Sidecar sidecar, Mode mode, String reason) {
        String message = "recovery of operation " + sidecar.operationId() + " refused: " + reason
                + "; the sidecar is kept for an operator";
        if (mode == Mode.ROLL_FORWARD_ONLY) {
            return Mono.just(new Outcome.Deferred(message));
        }
        return Mono.error(new RecoveryRequired(sidecar.operationId(), message, null));
    }

    private static Txn planned(Sidecar sidecar, String tableKey) {
        return sidecar.protocolV3().effects().stream().filter(effect -> effect.tableKey().equals(tableKey))
                .map(Sidecar.Effect::plannedTransaction).findFirst()
                .orElseThrow(() -> new StorageFault("sidecar " + sidecar.operationId() + " pins " + tableKey
                        + " without a planned transaction", null));
    }

    private static Optional<Txn> restoreOf(Sidecar sidecar, String tableKey) {
        return Optional.ofNullable(sidecar.protocolV3().rollbackRestores()).flatMap(restores -> restores.stream()
                .filter(restore -> restore.tableKey().equals(tableKey)).map(RollbackRestore::restoreTransaction).findFirst());
    }

    private static TablePin pinOf(Sidecar sidecar, String tableKey) {
        return sidecar.tables().stream().filter(pin -> pin.tableKey().equals(tableKey)).findFirst().orElseThrow();
    }

    private static TableRef ref(TablePin pin) {
        return new TableRef(pin.tablePath(), Optional.ofNullable(pin.tableBranch()));
    }

    private static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000L;
    }
}
