package dev.omnigraph.recovery;

import dev.omnigraph.recovery.RecoveryRecord.TableOutcome;
import dev.omnigraph.recovery.Sidecar.RollbackRestore;
import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.recovery.Sidecar.Txn;
import dev.omnigraph.storage.CommittedVersion;
import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.TransactionIdentity;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.ExpectedHead;
import dev.omnigraph.storage.manifest.IdempotencyRecord;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.PublishRequest;
import dev.omnigraph.storage.manifest.TableEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The building blocks of recovery actions, shared by the one-sidecar recovery and the bulk sweep: the roll-forward
 * publish, staging and exactly committing Lance restores, the durable restore plan, the rollback publish and the
 * audit rows. Each is written once so both paths obey the same rules.
 */
final class RecoverySteps {
    static final String ROLLBACK_OPERATION = "recovery:rollback";

    private final TableStorage tables;
    private final TablePaths paths;

    RecoverySteps(TableStorage tables, TablePaths paths) {
        this.tables = tables;
        this.paths = paths;
    }

    /** The publish of a confirmed write's fixed delta and lineage, under the authority it captured. */
    static PublishRequest forwardRequest(Sidecar sidecar, String branch, BranchIdentity identity, ManifestState state) {
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
        return new PublishRequest(branch, new ExpectedHead.Exact(Optional.ofNullable(payload.authority().graphHead())),
                Optional.of(identity), expectedPins, updates, lineage.graphCommitId(),
                Optional.ofNullable(lineage.mergedParentCommitId()),
                Optional.ofNullable(lineage.actorId()), lineage.createdAt(), lineage.operation(),
                Optional.ofNullable(lineage.idempotency()).map(record -> new IdempotencyRecord(record.key(),
                        record.requestHash(), record.affectedNodes(), record.affectedEdges(),
                        record.entitiesByTable() == null ? null : new java.util.TreeMap<>(record.entitiesByTable()))));
    }

    /** The audit outcomes of a roll-forward: each table from its expected pin to its confirmed version. */
    static List<TableOutcome> forwardOutcomes(Sidecar sidecar) {
        List<TableOutcome> outcomes = new ArrayList<>();
        for (Sidecar.TableUpdate update : sidecar.protocolV3().intendedDelta().tableUpdates()) {
            long to = update.confirmed() != null ? update.confirmed().tableVersion() : update.expectedVersion() + 1;
            outcomes.add(new TableOutcome(update.tableKey(), update.expectedVersion(), to));
        }
        return outcomes;
    }

    /** The audit outcomes of a roll-forward whose commit is visible: exactly the table deltas it published. */
    static List<TableOutcome> forwardOutcomes(dev.omnigraph.storage.manifest.GraphCommit published) {
        return published.deltas().stream()
                .map(delta -> new TableOutcome(delta.tableKey(), delta.fromVersion(), delta.toVersion())).toList();
    }

    /** Deletes the first-touch forks a rolled-back intent created (never published, so never restored). */
    Mono<Void> reclaimForks(List<TablePin> forks) {
        return ForkPins.reclaim(tables, forks.stream().map(paths::ref).toList());
    }

    /** Stages one restore per pin (to its expected version); on failure every staged restore is discarded. */
    Mono<List<Map.Entry<TablePin, StagedHandle>>> stageRestores(List<TablePin> pins) {
        List<StagedHandle> allStaged = new CopyOnWriteArrayList<>();
        return Flux.fromIterable(pins)
                .concatMap(pin -> tables.stageRestore(paths.ref(pin), pin.expectedVersion())
                        .doOnNext(allStaged::add)
                        .map(handle -> Map.entry(pin, handle)))
                .collectList()
                .onErrorResume(error -> Flux.fromIterable(allStaged).concatMap(tables::discard).then(Mono.error(error)));
    }

    Mono<Void> discard(List<Map.Entry<TablePin, StagedHandle>> staged) {
        return Flux.fromIterable(staged).concatMap(entry -> tables.discard(entry.getValue())).then();
    }

    /**
     * {@code sidecar} with the identities of its staged restores recorded (replacing older ones of the same
     * tables) and, when given, the rollback commit id it will be published under. Written before the first
     * restore commits, so a recovery interrupted half-way recognises its own restores on re-entry.
     */
    static Sidecar planned(Sidecar sidecar, List<Map.Entry<TablePin, StagedHandle>> staged, Optional<String> rollbackCommitId) {
        List<RollbackRestore> restores = new ArrayList<>();
        Optional.ofNullable(sidecar.protocolV3().rollbackRestores()).ifPresent(restores::addAll);
        for (Map.Entry<TablePin, StagedHandle> entry : staged) {
            TransactionIdentity identity = entry.getValue().identity();
            restores.removeIf(existing -> existing.tableKey().equals(entry.getKey().tableKey()));
            restores.add(new RollbackRestore(entry.getKey().tableKey(), entry.getKey().expectedVersion(),
                    Txn.of(identity)));
        }
        Sidecar.ProtocolV3 payload = sidecar.protocolV3().withRollbackRestores(restores);
        if (rollbackCommitId.isPresent()) {
            payload = new Sidecar.ProtocolV3(payload.authority(), payload.lineage(), rollbackCommitId.get(),
                    payload.effectPhase(), payload.effects(), payload.intendedDelta(), payload.rollbackRestores());
        }
        return sidecar.withPayload(sidecar.tables(), payload);
    }

    /**
     * Commits each staged restore (at most {@code parallelism} at once; they are on distinct tables); each must
     * land exactly on its read version + 1. Returns the committed versions in {@code staged} order.
     * {@code afterEach} gives the failpoint hit after the n-th (1-based) commit.
     */
    Mono<List<CommittedVersion>> commitRestores(List<Map.Entry<TablePin, StagedHandle>> staged, int parallelism,
                                                IntFunction<Mono<Void>> afterEach) {
        return Flux.range(0, staged.size())
                .flatMapSequential(index -> {
                    Map.Entry<TablePin, StagedHandle> entry = staged.get(index);
                    return tables.commitStaged(entry.getValue()).flatMap(committed -> committed.isExactly(entry.getValue().identity())
                            ? afterEach.apply(index + 1).thenReturn(committed)
                            : Mono.error(new StorageFault("restore of " + entry.getKey().tableKey() + " landed as "
                                    + committed + " instead of exactly on its read version", null)));
                }, parallelism)
                .collectList();
    }

    /** {@code committed} (from {@link #commitRestores}) by table key. */
    static Map<String, CommittedVersion> byTable(List<Map.Entry<TablePin, StagedHandle>> staged, List<CommittedVersion> committed) {
        Map<String, CommittedVersion> out = new LinkedHashMap<>();
        for (int i = 0; i < staged.size(); i++) {
            out.put(staged.get(i).getKey().tableKey(), committed.get(i));
        }
        return out;
    }

    /** Tables a previous, interrupted recovery already restored: their HEAD is the restore. */
    Mono<Map<String, CommittedVersion>> alreadyRestored(List<TablePin> restored) {
        return Flux.fromIterable(restored)
                .concatMap(pin -> tables.open(paths.ref(pin), OptionalLong.empty())
                        .map(snapshot -> Map.entry(pin.tableKey(), new CommittedVersion(snapshot.version(),
                                new TransactionIdentity(snapshot.version() - 1, ""), snapshot.rowCount()))))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue);
    }

    /** One publish of restored HEADs, so the manifest pins them again; {@code head} is the branch's current head. */
    static PublishRequest rollbackRequest(String branch, ManifestState state, Optional<String> head, String commitId,
                                          Map<String, CommittedVersion> restoredVersions) {
        Map<String, Long> expectedPins = new LinkedHashMap<>();
        List<TableEntry> updates = new ArrayList<>();
        restoredVersions.forEach((tableKey, committed) -> {
            TableEntry pinned = state.table(tableKey).orElseThrow();
            expectedPins.put(tableKey, pinned.version());
            updates.add(pinned.pinnedAt(committed.version(), pinned.lanceBranch(), committed.rowCount()));
        });
        return new PublishRequest(branch, new ExpectedHead.Exact(head), Optional.empty(), expectedPins, updates, commitId,
                Optional.empty(), Optional.of(SidecarRecovery.RECOVERY_ACTOR), nowMicros(), ROLLBACK_OPERATION);
    }

    /** The audit outcomes of a rollback: each restored table from its effect's version back to its pin. */
    static List<TableOutcome> rollbackOutcomes(Sidecar sidecar, Map<String, CommittedVersion> restoredVersions) {
        List<TableOutcome> outcomes = new ArrayList<>();
        for (TablePin pin : sidecar.tables()) {
            CommittedVersion restored = restoredVersions.get(pin.tableKey());
            if (restored != null) {
                outcomes.add(new TableOutcome(pin.tableKey(), restored.version() - 1, pin.expectedVersion()));
            }
        }
        return outcomes;
    }

    /** The audit outcomes of a rollback that had nothing to restore: every table stayed at its pin. */
    static List<TableOutcome> untouched(Sidecar sidecar) {
        return sidecar.tables().stream()
                .map(pin -> new TableOutcome(pin.tableKey(), pin.expectedVersion(), pin.expectedVersion())).toList();
    }

    static RecoveryRecord record(Sidecar sidecar, RecoveryRecord.Kind kind, Optional<String> commitId,
                                 List<TableOutcome> outcomes) {
        return new RecoveryRecord(commitId, kind, Optional.ofNullable(sidecar.actorId()), sidecar.operationId(),
                sidecar.writerKind().name(), outcomes, Instant.now());
    }

    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000L;
    }
}
