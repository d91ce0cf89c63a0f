package dev.omnigraph.engine.evolve;

import dev.omnigraph.engine.evolve.SchemaEffects.Found;
import dev.omnigraph.engine.evolve.SchemaEffects.Kind;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.recovery.RecoveryAudit;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.recovery.SidecarRecovery;
import dev.omnigraph.recovery.TablePaths;
import dev.omnigraph.storage.CommittedVersion;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.ExpectedHead;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestSchema;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.PublishRequest;
import dev.omnigraph.storage.manifest.TableEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Finishes or undoes an interrupted schema apply, exactly (the v7 rules of the write-path specification):
 * <ul>
 * <li>its original commit visible on main (and its rollback not) → promote the staged contract, audit, retire;
 * its rollback commit visible → discard the staging, audit, retire; both visible → {@code InvariantViolation},
 * refused with the sidecar kept;</li>
 * <li>else every table effect is proved by transaction identity ({@link SchemaEffects}); anything foreign or buried
 * fails closed;</li>
 * <li>confirmed, every effect exactly at HEAD, main's identity, head and stored schema identity still the ones it
 * planned on, staging present → publish the same delta under the same commit id ({@link ApplyDelta}), promote;</li>
 * <li>otherwise roll back: delete the version-one datasets it created (unless registered), stage one restore per
 * rewritten table, record their identities in the sidecar <em>before</em> committing them (a recovery killed
 * half-way recognises its own landed restores and does not restore again), commit them exactly, and publish the
 * restored versions under the pre-minted rollback commit id on main's current head (a disjoint winner is kept).</li>
 * </ul>
 * Every outcome appends one audit row (idempotent per operation) before the sidecar is deleted. Staging files without
 * any schema-apply intent are the remains of an apply that died before arming: discarded. Runs at read-write open
 * (before the contract is read) and when an apply fails after arming; the caller holds the schema gate exclusively.
 */
public final class SchemaApplyRecovery {
    static final String RECOVERY_ACTOR = SidecarRecovery.RECOVERY_ACTOR;
    /** Recovery's own failpoints: after the restore plan is durable, and after the n-th restore commit. */
    public static final String AFTER_PLAN = "recovery.schema.after_plan";
    public static final String AFTER_RESTORE = "recovery.schema.after_restore";

    private final WriteContext ctx;
    private final ObjectStore files;
    private final SchemaEffects effects;

    public SchemaApplyRecovery(WriteContext ctx, ObjectStore files) {
        this.ctx = ctx;
        this.files = files;
        this.effects = new SchemaEffects(ctx.tables(), pin -> TableRef.main(ctx.sidecars().paths().resolve(pin)));
    }

    /** Every pending schema apply resolved; leftover staging files removed. */
    public Mono<Void> recoverAll() {
        return ctx.sidecars().list()
                .filter(sidecar -> sidecar.writerKind() == Sidecar.WriterKind.SchemaApply)
                .concatMap(this::recover)
                .then(ContractStaging.discard(files));
    }

    /** One intent resolved; emits true when it rolled forward (its commit is published and its contract live). */
    Mono<Boolean> recover(Sidecar sidecar) {
        return recover(sidecar, false);
    }

    /** The applier undoing its own failed attempt: finish it if its commit is visible, else roll it back. */
    Mono<Boolean> compensate(Sidecar sidecar) {
        return recover(sidecar, true);
    }

    private Mono<Boolean> recover(Sidecar sidecar, boolean compensating) {
        Sidecar.ProtocolV3 payload = sidecar.protocolV3();
        Optional<String> outside = ctx.sidecars().paths().refusal(sidecar);
        if (payload == null || outside.isPresent()) {
            return refuse(sidecar, outside.orElse("it carries no exact schema-apply payload"));
        }
        return Mono.zip(ctx.manifest().commitOn(GraphBranches.MAIN, payload.lineage().graphCommitId()),
                        ctx.manifest().commitOn(GraphBranches.MAIN, payload.rollbackGraphCommitId()))
                .flatMap(visible -> {
                    Optional<GraphCommit> published = visible.getT1();
                    Optional<GraphCommit> rolledBack = visible.getT2();
                    if (published.isPresent() && rolledBack.isPresent()) {
                        return refuse(sidecar, "InvariantViolation: both its commit " + published.get().id()
                                + " and its rollback commit " + rolledBack.get().id() + " are visible");
                    }
                    if (published.isPresent()) {
                        return finish(sidecar, published.get()).thenReturn(true);
                    }
                    if (rolledBack.isPresent()) {
                        return retire(sidecar, Optional.of(rolledBack.get().id()), untouched(sidecar)).thenReturn(false);
                    }
                    return Mono.zip(ctx.manifest().load(GraphBranches.MAIN), ctx.manifest().branchIdentity(GraphBranches.MAIN))
                            .flatMap(live -> effects.classify(sidecar, live.getT1()).flatMap(byPin -> {
                                Optional<String> refusal = SchemaEffects.refusal(byPin);
                                if (refusal.isPresent()) {
                                    return refuse(sidecar, refusal.get());
                                }
                                Mono<Boolean> mayForward = compensating ? Mono.just(false)
                                        : canRollForward(sidecar, byPin, live.getT1(), live.getT2());
                                return mayForward
                                        .flatMap(forward -> forward
                                                ? rollForward(sidecar, live.getT1(), live.getT2()).thenReturn(true)
                                                : rollBack(sidecar, live.getT1(), byPin).thenReturn(false));
                            }));
                });
    }

    private static Mono<Boolean> refuse(Sidecar sidecar, String reason) {
        return Mono.error(new RecoveryRequired(sidecar.operationId(), SidecarRecovery.refusalMessage(sidecar, reason), null));
    }

    // ---- forward --------------------------------------------------------------------------------------------

    /**
     * Confirmed, every effect exactly its own at its confirmed version, and the authority it planned under still
     * main's: the same native identity, the same head, the same stored schema identity; and the staged contract
     * still there to promote.
     */
    private Mono<Boolean> canRollForward(Sidecar sidecar, Map<TablePin, Found> byPin, ManifestState state,
                                         BranchIdentity main) {
        Sidecar.ProtocolV3 payload = sidecar.protocolV3();
        if (payload.effectPhase() != Sidecar.EffectPhase.EffectsConfirmed) {
            return Mono.just(false);
        }
        boolean exact = byPin.entrySet().stream().allMatch(e -> e.getValue().kind() == Kind.OWN_AT_HEAD
                && e.getKey().confirmedVersion() != null && e.getValue().head() == e.getKey().confirmedVersion());
        return exact && authorityHolds(payload.authority(), state, main) ? ContractStaging.present(files) : Mono.just(false);
    }

    static boolean authorityHolds(Sidecar.Authority captured, ManifestState state, BranchIdentity main) {
        Sidecar.BranchIdentifier id = captured.branchIdentifier();
        boolean sameBranch = id == null || new BranchIdentity(id.name(), Optional.ofNullable(id.parent()),
                id.parentVersion(), id.createdAt()).equals(main);
        boolean sameSchema = captured.schemaIrHash() == null
                || state.schemaIdentity().map(captured.schemaIrHash()::equals).orElse(true);
        return sameBranch && sameSchema && captured.sameTenure(state.writerEpoch())
                && Objects.equals(state.head().orElse(null), captured.graphHead());
    }

    private Mono<Void> rollForward(Sidecar sidecar, ManifestState state, BranchIdentity main) {
        return ContractStaging.read(files)
                .flatMap(target -> ctx.publisher().publish(ApplyDelta.request(state, main, target,
                        SchemaIntent.landed(sidecar), sidecar.protocolV3().lineage())))
                .flatMap(commit -> finish(sidecar, commit));
    }

    /** The commit is visible: promote the contract it was published with, audit, retire the intent. */
    private Mono<Void> finish(Sidecar sidecar, GraphCommit published) {
        List<RecoveryRecord.TableOutcome> outcomes = published.deltas().stream()
                .map(d -> new RecoveryRecord.TableOutcome(d.tableKey(), d.fromVersion(), d.toVersion())).toList();
        return ContractStaging.promote(files, ctx.failpoints())
                .then(audit(sidecar, RecoveryRecord.Kind.RolledForward, Optional.of(published.id()), outcomes))
                .then(ctx.sidecars().delete(sidecar.operationId())).then();
    }

    // ---- back -----------------------------------------------------------------------------------------------

    private Mono<Void> rollBack(Sidecar sidecar, ManifestState state, Map<TablePin, Found> byPin) {
        try {
            ctx.publisher().requireFenced(state); // a writer whose tenure was taken over restores and deletes nothing
        } catch (RuntimeException lost) {
            return Mono.error(lost);
        }
        List<TablePin> created = new ArrayList<>();
        List<TablePin> toRestore = new ArrayList<>();
        List<TablePin> restored = new ArrayList<>();
        byPin.forEach((pin, found) -> {
            if (pin.expectedVersion() == 0) created.add(pin);
            else if (found.kind() == Kind.OWN_AT_HEAD) toRestore.add(pin);
            else if (found.kind() == Kind.OWN_COMPENSATED) restored.add(pin);
        });
        return Flux.fromIterable(created).concatMap(pin -> dropCreated(pin, state)).then()
                .then(restore(sidecar, toRestore))
                .flatMap(landed -> current(restored).map(already -> {
                    Map<String, CommittedVersion> all = new LinkedHashMap<>(landed);
                    all.putAll(already);
                    return all;
                }))
                .flatMap(all -> {
                    List<RecoveryRecord.TableOutcome> outcomes = new ArrayList<>();
                    byPin.keySet().forEach(pin -> outcomes.add(new RecoveryRecord.TableOutcome(pin.tableKey(),
                            all.containsKey(pin.tableKey()) ? pin.expectedVersion() + 1 : pin.expectedVersion(),
                            pin.expectedVersion())));
                    if (all.isEmpty()) {
                        return retire(sidecar, Optional.empty(), outcomes);
                    }
                    String rollbackId = sidecar.protocolV3().rollbackGraphCommitId();
                    return ctx.publisher().publish(rollbackRequest(rollbackId, state, byPin.keySet(), all))
                            .then(retire(sidecar, Optional.of(rollbackId), outcomes));
                });
    }

    /**
     * Stages one restore per table, writes their identities into the sidecar (the durable plan), then commits each
     * exactly on its read version. Emits the landed versions by the pin's table key.
     */
    private Mono<Map<String, CommittedVersion>> restore(Sidecar sidecar, List<TablePin> pins) {
        if (pins.isEmpty()) {
            return Mono.just(Map.of());
        }
        List<StagedHandle> staged = java.util.Collections.synchronizedList(new ArrayList<>());
        return Flux.fromIterable(pins)
                .concatMap(pin -> ctx.tables().stageRestore(TableRef.main(ctx.sidecars().paths().resolve(pin)),
                        pin.expectedVersion()).doOnNext(staged::add))
                .collectList()
                .flatMap(handles -> ctx.sidecars().write(planned(sidecar, pins, handles))
                        .then(ctx.failpoints().hit(AFTER_PLAN))
                        .then(Flux.range(0, pins.size()).concatMap(i -> ctx.tables().commitStaged(handles.get(i))
                                .flatMap(landed -> landed.isExactly(handles.get(i).identity())
                                        ? ctx.failpoints().hit(AFTER_RESTORE + ":" + (i + 1))
                                                .thenReturn(Map.entry(pins.get(i).tableKey(), landed))
                                        : Mono.error(new StorageFault("restore of " + pins.get(i).tableKey() + " landed as "
                                                + landed + " instead of exactly on its read version", null))))
                                .collectMap(Map.Entry::getKey, Map.Entry::getValue)))
                .<Map<String, CommittedVersion>>map(LinkedHashMap::new)
                .onErrorResume(error -> Flux.fromIterable(List.copyOf(staged)).concatMap(ctx.tables()::discard)
                        .onErrorResume(ignored -> Mono.empty()).then(Mono.error(error)));
    }

    private static Sidecar planned(Sidecar sidecar, List<TablePin> pins, List<StagedHandle> handles) {
        List<Sidecar.RollbackRestore> restores = new ArrayList<>();
        Optional.ofNullable(sidecar.protocolV3().rollbackRestores()).ifPresent(restores::addAll);
        for (int i = 0; i < pins.size(); i++) {
            String key = pins.get(i).tableKey();
            restores.removeIf(existing -> existing.tableKey().equals(key));
            restores.add(new Sidecar.RollbackRestore(key, pins.get(i).expectedVersion(),
                    Sidecar.Txn.of(handles.get(i).identity())));
        }
        return sidecar.withPayload(sidecar.tables(), sidecar.protocolV3().withRollbackRestores(restores));
    }

    /** Tables a previous, interrupted recovery already restored: their HEAD is that restore. */
    private Mono<Map<String, CommittedVersion>> current(List<TablePin> pins) {
        return Flux.fromIterable(pins)
                .concatMap(pin -> ctx.tables().open(TableRef.main(ctx.sidecars().paths().resolve(pin)),
                                java.util.OptionalLong.empty())
                        .map(snapshot -> Map.entry(pin.tableKey(), new CommittedVersion(snapshot.version(),
                                new dev.omnigraph.storage.TransactionIdentity(snapshot.version() - 1, ""), snapshot.rowCount()))))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue);
    }

    /** A dataset this apply created is deleted, but only when no manifest entry registers its path. */
    private Mono<Void> dropCreated(TablePin pin, ManifestState state) {
        String relative = TablePaths.relative(pin).orElseThrow();
        boolean registered = state.tables().values().stream().anyMatch(entry -> entry.location().equals(relative));
        if (registered) {
            return Mono.empty();
        }
        return files.list(relative + "/").flatMapMany(Flux::fromIterable).concatMap(files::delete).then();
    }

    private static PublishRequest rollbackRequest(String commitId, ManifestState state, java.util.Set<TablePin> pins,
                                                  Map<String, CommittedVersion> restored) {
        Map<String, Long> expected = new LinkedHashMap<>();
        List<TableEntry> updates = new ArrayList<>();
        for (TablePin pin : pins) {
            CommittedVersion landed = restored.get(pin.tableKey());
            if (landed == null) {
                continue;
            }
            TableEntry entry = state.liveTables().stream().filter(live -> live.objectId().equals(ManifestSchema
                    .tableObjectId(pin.identity().stableTableId(), pin.identity().tableIncarnationId()))).findFirst()
                    .orElseThrow();
            expected.put(entry.tableKey(), entry.version());
            updates.add(entry.pinnedAt(landed.version(), entry.lanceBranch(), landed.rowCount()));
        }
        return new PublishRequest(GraphBranches.MAIN, new ExpectedHead.Exact(state.head()), Optional.empty(), expected,
                updates, commitId, Optional.empty(), Optional.of(RECOVERY_ACTOR), SchemaApplier.nowMicros(),
                SchemaIntent.OPERATION + "_rollback");
    }

    // ---- retire ---------------------------------------------------------------------------------------------

    private Mono<Void> retire(Sidecar sidecar, Optional<String> commitId, List<RecoveryRecord.TableOutcome> outcomes) {
        return ContractStaging.discard(files)
                .then(SchemaHistory.discard(files, sidecar.protocolV3().lineage().graphCommitId()))
                .then(audit(sidecar, RecoveryRecord.Kind.RolledBack, commitId, outcomes))
                .then(ctx.sidecars().delete(sidecar.operationId())).then();
    }

    private static List<RecoveryRecord.TableOutcome> untouched(Sidecar sidecar) {
        return sidecar.tables().stream().map(pin -> new RecoveryRecord.TableOutcome(pin.tableKey(),
                pin.expectedVersion(), pin.expectedVersion())).toList();
    }

    /** The audit row of this recovery (idempotent per operation), before the sidecar goes. */
    private Mono<Void> audit(Sidecar sidecar, RecoveryRecord.Kind kind, Optional<String> commitId,
                             List<RecoveryRecord.TableOutcome> outcomes) {
        return ctx.failpoints().hit(FailpointCatalog.AUDIT_RECORD)
                .then(new RecoveryAudit(ctx.root(), ctx.tables()).record(new RecoveryRecord(commitId, kind,
                        Optional.ofNullable(sidecar.actorId()), sidecar.operationId(), sidecar.writerKind().name(),
                        outcomes, Instant.now())));
    }
}
