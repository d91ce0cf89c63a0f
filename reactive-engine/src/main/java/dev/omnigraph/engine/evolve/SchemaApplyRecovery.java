package dev.omnigraph.engine.evolve;

import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.recovery.SidecarRecovery;
import dev.omnigraph.recovery.TablePaths;
import dev.omnigraph.storage.CommittedVersion;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.manifest.ExpectedHead;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.ManifestSchema;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.PublishRequest;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Finishes or undoes an interrupted schema apply, exactly. Its original commit visible on main → promote the
 * staged contract and retire the intent. Not visible, every effect confirmed, and main's head still the one it
 * was planned on → publish the same delta with the same commit id ({@link ApplyDelta}), then promote. Anything
 * else → roll back: delete the version-one datasets it created, restore every rewritten table to its pin and
 * publish the restored heads (so manifest = HEAD again), discard the staging files. Staging files without any
 * schema-apply intent are the remains of an apply that died before arming: discarded. Runs at read-write open
 * (before the contract is read) and when an apply fails after arming; the caller holds the schema gate.
 */
public final class SchemaApplyRecovery {
    static final String RECOVERY_ACTOR = "omnigraph:recovery";
    private final WriteContext ctx;
    private final ObjectStore files;

    public SchemaApplyRecovery(WriteContext ctx, ObjectStore files) {
        this.ctx = ctx;
        this.files = files;
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
        Sidecar.ProtocolV3 payload = sidecar.protocolV3();
        return ctx.manifest().commitOn(GraphBranches.MAIN, payload.lineage().graphCommitId()).flatMap(published -> {
            if (published.isPresent()) {
                return finish(sidecar).thenReturn(true);
            }
            Optional<String> outside = ctx.sidecars().paths().refusal(sidecar);
            return ctx.manifest().commitOn(GraphBranches.MAIN, payload.rollbackGraphCommitId()).flatMap(rolledBack ->
                    rolledBack.isPresent() ? retire(sidecar).thenReturn(false)
                            : outside.isPresent() ? Mono.error(new RecoveryRequired(sidecar.operationId(),
                                    SidecarRecovery.refusalMessage(sidecar, outside.get()), null))
                            : canRollForward(sidecar).flatMap(forward -> forward
                                    ? rollForward(sidecar).thenReturn(true)
                                    : rollBack(sidecar).thenReturn(false)));
        });
    }

    private Mono<Void> finish(Sidecar sidecar) {
        return ContractStaging.promote(files, ctx.failpoints()).then(ctx.sidecars().delete(sidecar.operationId())).then();
    }

    private Mono<Void> retire(Sidecar sidecar) {
        return ContractStaging.discard(files)
                .then(SchemaHistory.discard(files, sidecar.protocolV3().lineage().graphCommitId()))
                .then(ctx.sidecars().delete(sidecar.operationId())).then();
    }

    /** Confirmed, main unchanged since planning, every table exactly at its confirmed version. */
    private Mono<Boolean> canRollForward(Sidecar sidecar) {
        Sidecar.ProtocolV3 payload = sidecar.protocolV3();
        if (payload.effectPhase() != Sidecar.EffectPhase.EffectsConfirmed) {
            return Mono.just(false);
        }
        return ctx.manifest().load(GraphBranches.MAIN).flatMap(state -> {
            if (!Objects.equals(state.head().orElse(null), payload.authority().graphHead())) {
                return Mono.just(false);
            }
            return Flux.fromIterable(sidecar.tables())
                    .concatMap(pin -> ctx.tables().head(TableRef.main(ctx.sidecars().paths().resolve(pin)))
                            .map(head -> pin.confirmedVersion() != null && head == pin.confirmedVersion())
                            .onErrorReturn(false))
                    .all(Boolean::booleanValue)
                    .flatMap(allLanded -> allLanded ? ContractStaging.present(files) : Mono.just(false));
        });
    }

    private Mono<Void> rollForward(Sidecar sidecar) {
        return Mono.zip(ContractStaging.read(files), ctx.manifest().load(GraphBranches.MAIN),
                        ctx.manifest().branchIdentity(GraphBranches.MAIN))
                .flatMap(loaded -> ctx.publisher().publish(ApplyDelta.request(loaded.getT2(), loaded.getT3(),
                        loaded.getT1(), SchemaIntent.landed(sidecar), sidecar.protocolV3().lineage())))
                .then(finish(sidecar));
    }

    private Mono<Void> rollBack(Sidecar sidecar) {
        return ctx.manifest().load(GraphBranches.MAIN).flatMap(state -> Flux.fromIterable(sidecar.tables())
                        .concatMap(pin -> pin.expectedVersion() == 0 ? dropCreated(pin, state).then(Mono.<TableEntry>empty())
                                : restore(pin, state))
                        .collectList()
                        .flatMap(restored -> restored.isEmpty() ? Mono.empty()
                                : ctx.publisher().publish(rollbackRequest(sidecar, state, restored)).then()))
                .then(retire(sidecar));
    }

    /** A table the apply rewrote is put back to its pin's content (a restore commit), unless it never moved. */
    private Mono<TableEntry> restore(TablePin pin, ManifestState state) {
        TableRef ref = TableRef.main(ctx.sidecars().paths().resolve(pin));
        TableEntry entry = state.liveTables().stream()
                .filter(live -> live.objectId().equals(ManifestSchema.tableObjectId(pin.identity().stableTableId(),
                        pin.identity().tableIncarnationId())))
                .findFirst().orElse(null);
        if (entry == null) {
            return Mono.empty();
        }
        return ctx.tables().head(ref).flatMap(head -> head <= pin.expectedVersion() ? Mono.<TableEntry>empty()
                : ctx.tables().restore(ref, pin.expectedVersion())
                        .map((CommittedVersion restored) -> entry.pinnedAt(restored.version(), entry.lanceBranch(),
                                restored.rowCount())));
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

    private static PublishRequest rollbackRequest(Sidecar sidecar, ManifestState state, List<TableEntry> restored) {
        Map<String, Long> expected = new LinkedHashMap<>();
        List<TableEntry> updates = new ArrayList<>();
        for (TableEntry entry : restored) {
            expected.put(entry.tableKey(), state.table(entry.tableKey()).map(TableEntry::version).orElse(0L));
            updates.add(entry);
        }
        return new PublishRequest(GraphBranches.MAIN, new ExpectedHead.Exact(state.head()), Optional.empty(), expected,
                updates, sidecar.protocolV3().rollbackGraphCommitId(), Optional.empty(), Optional.of(RECOVERY_ACTOR),
                SchemaApplier.nowMicros(), SchemaIntent.OPERATION + "_rollback");
    }
}
