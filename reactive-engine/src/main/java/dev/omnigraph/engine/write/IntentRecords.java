package dev.omnigraph.engine.write;

import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.recovery.Sidecar.Authority;
import dev.omnigraph.recovery.Sidecar.BranchIdentifier;
import dev.omnigraph.recovery.Sidecar.Confirmed;
import dev.omnigraph.recovery.Sidecar.Effect;
import dev.omnigraph.recovery.Sidecar.Identity;
import dev.omnigraph.recovery.Sidecar.IntendedDelta;
import dev.omnigraph.recovery.Sidecar.Lineage;
import dev.omnigraph.recovery.Sidecar.ProtocolV3;
import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.recovery.Sidecar.TableUpdate;
import dev.omnigraph.recovery.Sidecar.Txn;
import dev.omnigraph.recovery.TablePaths;
import dev.omnigraph.storage.CommittedVersion;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.IdempotencyRecord;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Builds the sidecar of an exact mutation/load write: armed before the first effect, then confirmed. */
final class IntentRecords {
    private IntentRecords() {
    }

    /** The fixed lineage of one attempt: commit id, actor and time never change after arming. */
    record LineageIntent(String commitId, String branch, Optional<String> actorId, long createdAtMicros, String operation,
                         Optional<IdempotencyRecord> idempotency, Optional<String> mergedParent) {
    }

    static Sidecar armed(WriteContext ctx, Sidecar.WriterKind kind, String operationId, WriteToken token,
                         LineageIntent lineage, List<StagedEffect> effects, List<PointerSwitch> pointers) {
        List<TablePin> pins = new ArrayList<>();
        List<Effect> planned = new ArrayList<>();
        List<TableUpdate> updates = new ArrayList<>();
        for (StagedEffect effect : effects) {
            TableEntry pin = effect.change().pin();
            Identity identity = identity(pin);
            String lanceBranch = pin.lanceBranch().orElse(null);
            pins.add(new TablePin(identity, pin.tableKey(), TablePaths.recorded(pin.location()), pin.version(),
                    pin.version() + effect.transactions(), null, lanceBranch));
            planned.add(new Effect(identity, pin.tableKey(), txn(effect, operationId), null, null,
                    effect.chain().map(ChunkChain::declared).orElse(null)));
            updates.add(new TableUpdate(identity, pin.tableKey(), pin.version(), lanceBranch, null));
        }
        // Pins switched without a data write are part of the intended delta, already final: a roll-forward
        // publishes the whole merge, and a rollback has nothing of theirs to undo.
        for (PointerSwitch pointer : pointers) {
            TableEntry to = pointer.to();
            String ref = to.lanceBranch().orElse(null);
            updates.add(new TableUpdate(identity(pointer.pin()), pointer.tableKey(), pointer.pin().version(), ref,
                    new Confirmed(to.version(), ref, to.rowCount())));
        }
        ProtocolV3 payload = new ProtocolV3(authority(ctx, token),
                new Lineage(lineage.commitId(), branchField(lineage.branch()), lineage.actorId().orElse(null),
                        lineage.createdAtMicros(), lineage.mergedParent().orElse(null), lineage.operation(), lineage.idempotency()
                        .map(record -> new Sidecar.Idempotency(record.key(), record.requestHash(),
                                record.affectedNodes(), record.affectedEdges(), record.entitiesByTable())).orElse(null)),
                Ulid.next(), Sidecar.EffectPhase.Armed, planned, new IntendedDelta(updates), null);
        return new Sidecar(Sidecar.SCHEMA_VERSION, operationId, Long.toString(lineage.createdAtMicros()),
                branchField(token.branch()), lineage.actorId().orElse(null), kind, pins, payload);
    }

    /** The same intent after every effect landed exactly: confirmed versions, transactions and the manifest delta. */
    static Sidecar confirmed(Sidecar armed, Map<String, CommittedVersion> committedByTable) {
        List<TablePin> pins = new ArrayList<>();
        for (TablePin pin : armed.tables()) {
            CommittedVersion committed = committedByTable.get(pin.tableKey());
            pins.add(new TablePin(pin.identity(), pin.tableKey(), pin.tablePath(), pin.expectedVersion(),
                    pin.postCommitPin(), committed.version(), pin.tableBranch()));
        }
        ProtocolV3 payload = armed.protocolV3();
        List<Effect> effects = new ArrayList<>();
        for (Effect effect : payload.effects()) {
            CommittedVersion committed = committedByTable.get(effect.tableKey());
            effects.add(new Effect(effect.identity(), effect.tableKey(), effect.plannedTransaction(),
                    Txn.of(committed.transaction()), null, effect.chain()));
        }
        List<TableUpdate> updates = new ArrayList<>();
        for (TableUpdate update : payload.intendedDelta().tableUpdates()) {
            if (update.confirmed() != null) {
                updates.add(update); // a pointer switch: confirmed when armed
                continue;
            }
            CommittedVersion committed = committedByTable.get(update.tableKey());
            updates.add(new TableUpdate(update.identity(), update.tableKey(), update.expectedVersion(),
                    update.tableBranch(), new Confirmed(committed.version(), update.tableBranch(), committed.rowCount())));
        }
        return armed.withPayload(pins, new ProtocolV3(payload.authority(), payload.lineage(),
                payload.rollbackGraphCommitId(), Sidecar.EffectPhase.EffectsConfirmed, effects, new IntendedDelta(updates), null));
    }

    private static Authority authority(WriteContext ctx, WriteToken token) {
        var identity = token.branchIdentity();
        return new Authority(new BranchIdentifier(identity.name(), identity.parent().orElse(null),
                identity.parentVersion(), identity.createdAt()), token.head().orElse(null), token.schemaIrHash(),
                ctx.schemaIdentityDomain(), token.state().writerEpoch());
    }

    private static Identity identity(TableEntry pin) {
        return new Identity(pin.stableTableId(), pin.incarnationId());
    }

    /**
     * The staged transaction, or, armed beside staging, the one staging will make on the pin carrying the
     * operation id as its intent. None for a first-touch fork: it is staged only after arming; the fork ref is
     * owned by this intent.
     */
    private static Txn txn(StagedEffect effect, String operationId) {
        if (effect.handle() != null) {
            return Txn.of(effect.handle().identity());
        }
        return FirstTouchFork.isDeferred(effect) ? null : Txn.planned(effect.change().pin().version(), operationId);
    }

    /** Sidecars record main as null, like the manifest's table_branch. */
    private static String branchField(String graphBranch) {
        return GraphBranches.lanceRef(graphBranch).orElse(null);
    }
}
