package dev.omnigraph.engine.evolve;

import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.recovery.Sidecar.Effect;
import dev.omnigraph.recovery.Sidecar.Identity;
import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.recovery.Sidecar.TableUpdate;
import dev.omnigraph.recovery.Sidecar.Txn;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.manifest.BranchIdentity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code SchemaApply} sidecar: the accepted authority (main's identity, head and schema hash), the fixed
 * lineage and rollback ids, and one effect per table: an exact staged overwrite of an existing table (expected
 * version = its pin), or a version-one create of a new one (expected version 0). The full manifest delta is not
 * stored: it follows from the staged contract ({@code *.staging}) and the confirmed versions, see {@link ApplyDelta}.
 */
final class SchemaIntent {
    static final String OPERATION = "schema_apply";

    /**
     * One planned effect: table key (target schema), where it lives (relative to the root, as sidecars record it:
     * {@link dev.omnigraph.recovery.TablePaths}), the version it starts from and its txn.
     */
    record Planned(long typeId, long incarnationId, String tableKey, String path, long expectedVersion, Txn transaction) {
    }

    private SchemaIntent() {
    }

    static Sidecar armed(String operationId, BranchIdentity main, Optional<String> head, String schemaIrHash,
                         String domain, long writerEpoch, Optional<String> actor, long nowMicros, List<Planned> effects) {
        List<TablePin> pins = new ArrayList<>();
        List<Effect> planned = new ArrayList<>();
        List<TableUpdate> updates = new ArrayList<>();
        for (Planned effect : effects) {
            Identity identity = new Identity(effect.typeId(), effect.incarnationId());
            pins.add(new TablePin(identity, effect.tableKey(), effect.path(), effect.expectedVersion(),
                    effect.expectedVersion() + 1, null, null));
            planned.add(new Effect(identity, effect.tableKey(), effect.transaction(), null));
            updates.add(new TableUpdate(identity, effect.tableKey(), effect.expectedVersion(), null, null));
        }
        Sidecar.Authority authority = new Sidecar.Authority(new Sidecar.BranchIdentifier(main.name(),
                main.parent().orElse(null), main.parentVersion(), main.createdAt()), head.orElse(null), schemaIrHash, domain,
                writerEpoch);
        Sidecar.Lineage lineage = new Sidecar.Lineage(Ulid.next(), null, actor.orElse(null), nowMicros, null, OPERATION);
        return new Sidecar(Sidecar.SCHEMA_VERSION, operationId, Long.toString(nowMicros), null, actor.orElse(null),
                Sidecar.WriterKind.SchemaApply, pins, new Sidecar.ProtocolV3(authority, lineage, Ulid.next(),
                Sidecar.EffectPhase.Armed, planned, new Sidecar.IntendedDelta(updates), null));
    }

    /** The intent once every effect landed exactly at its expected version + 1. */
    static Sidecar confirmed(Sidecar armed, Map<String, ApplyDelta.Landed> landed) {
        List<TablePin> pins = armed.tables().stream().map(pin -> new TablePin(pin.identity(), pin.tableKey(),
                pin.tablePath(), pin.expectedVersion(), pin.postCommitPin(), landed.get(pin.tableKey()).version(),
                null)).toList();
        Sidecar.ProtocolV3 payload = armed.protocolV3();
        List<TableUpdate> updates = payload.intendedDelta().tableUpdates().stream().map(update -> {
            ApplyDelta.Landed at = landed.get(update.tableKey());
            return new TableUpdate(update.identity(), update.tableKey(), update.expectedVersion(), null,
                    new Sidecar.Confirmed(at.version(), null, at.rowCount()));
        }).toList();
        return armed.withPayload(pins, new Sidecar.ProtocolV3(payload.authority(), payload.lineage(),
                payload.rollbackGraphCommitId(), Sidecar.EffectPhase.EffectsConfirmed, payload.effects(),
                new Sidecar.IntendedDelta(updates), null));
    }

    /** Confirmed versions recorded in a sidecar, by table key. */
    static Map<String, ApplyDelta.Landed> landed(Sidecar sidecar) {
        Map<String, ApplyDelta.Landed> out = new java.util.HashMap<>();
        for (TableUpdate update : sidecar.protocolV3().intendedDelta().tableUpdates()) {
            if (update.confirmed() != null) {
                out.put(update.tableKey(), new ApplyDelta.Landed(update.confirmed().tableVersion(),
                        update.confirmed().rowCount()));
            }
        }
        return out;
    }
}
