package dev.omnigraph.engine.index;

import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.engine.write.WriteToken;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.recovery.Sidecar.Confirmed;
import dev.omnigraph.recovery.Sidecar.Effect;
import dev.omnigraph.recovery.Sidecar.Identity;
import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.recovery.Sidecar.TableUpdate;
import dev.omnigraph.recovery.TablePaths;
import dev.omnigraph.storage.IndexSpec;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code EnsureIndices} sidecar (the specification's v8 shape): armed before the first commit, naming per table
 * the pin it expects, the fork ref it writes (a first-touch table on a graph branch), the one CreateIndex
 * transaction it commits there (named by the intent id it carries, read at the pin, landing at pin + 1) and, for
 * the record, the indexes it builds; confirmed once every table's transaction landed, with the identities Lance
 * recorded. Recovery proves ownership exactly as for a data write.
 */
final class IndexIntent {
    static final String OPERATION = IndexEnsurer.OPERATION;

    private IndexIntent() {
    }

    /** One table's work: its pin as the token read it, the ref it builds on, and what it builds. */
    record TableWork(TableEntry pin, Optional<String> lanceBranch, String path, List<IndexSpec> specs) {
        long target() {
            return pin.version() + 1;
        }

        List<String> names() {
            return specs.stream().map(IndexSpec::name).toList();
        }
    }

    static Sidecar armed(WriteContext ctx, String operationId, WriteToken token, String commitId, Optional<String> actor,
                         long createdAtMicros, List<TableWork> work) {
        List<TablePin> pins = new ArrayList<>();
        List<Effect> effects = new ArrayList<>();
        List<TableUpdate> updates = new ArrayList<>();
        for (TableWork table : work) {
            TableEntry pin = table.pin();
            Identity identity = new Identity(pin.stableTableId(), pin.incarnationId());
            String branch = table.lanceBranch().orElse(null);
            pins.add(new TablePin(identity, pin.tableKey(), TablePaths.recorded(pin.location()), pin.version(),
                    table.target(), null, branch));
            effects.add(new Effect(identity, pin.tableKey(), Sidecar.Txn.planned(pin.version(), operationId), null,
                    table.names()));
            updates.add(new TableUpdate(identity, pin.tableKey(), pin.version(), branch, null));
        }
        var id = token.branchIdentity();
        Sidecar.Authority authority = new Sidecar.Authority(new Sidecar.BranchIdentifier(id.name(), id.parent().orElse(null),
                id.parentVersion(), id.createdAt()), token.head().orElse(null), token.schemaIrHash(), ctx.schemaIdentityDomain(),
                token.state().writerEpoch());
        String branchField = GraphBranches.lanceRef(token.branch()).orElse(null);
        Sidecar.Lineage lineage = new Sidecar.Lineage(commitId, branchField, actor.orElse(null), createdAtMicros, null,
                OPERATION);
        Sidecar.ProtocolV3 payload = new Sidecar.ProtocolV3(authority, lineage, Ulid.next(), Sidecar.EffectPhase.Armed,
                effects, new Sidecar.IntendedDelta(updates), null);
        return new Sidecar(Sidecar.SCHEMA_VERSION, operationId, Long.toString(createdAtMicros), branchField,
                actor.orElse(null), Sidecar.WriterKind.EnsureIndices, pins, payload);
    }

    /** The same intent with every table's transaction landed ({@code achieved}, in work order) at its target version. */
    static Sidecar confirmed(Sidecar armed, List<TableWork> work, List<dev.omnigraph.storage.TransactionIdentity> achieved) {
        List<Effect> effects = new ArrayList<>();
        for (int i = 0; i < work.size(); i++) {
            Effect effect = armed.protocolV3().effects().get(i);
            effects.add(new Effect(effect.identity(), effect.tableKey(), effect.plannedTransaction(),
                    Sidecar.Txn.of(achieved.get(i)), effect.indexes()));
        }
        List<TablePin> pins = new ArrayList<>();
        List<TableUpdate> updates = new ArrayList<>();
        for (int i = 0; i < work.size(); i++) {
            TableWork table = work.get(i);
            TablePin pin = armed.tables().get(i);
            pins.add(new TablePin(pin.identity(), pin.tableKey(), pin.tablePath(), pin.expectedVersion(),
                    pin.postCommitPin(), table.target(), pin.tableBranch()));
            TableUpdate update = armed.protocolV3().intendedDelta().tableUpdates().get(i);
            updates.add(new TableUpdate(update.identity(), update.tableKey(), update.expectedVersion(), update.tableBranch(),
                    new Confirmed(table.target(), update.tableBranch(), table.pin().rowCount())));
        }
        Sidecar.ProtocolV3 payload = armed.protocolV3();
        return armed.withPayload(pins, new Sidecar.ProtocolV3(payload.authority(), payload.lineage(),
                payload.rollbackGraphCommitId(), Sidecar.EffectPhase.EffectsConfirmed, effects,
                new Sidecar.IntendedDelta(updates), null));
    }
}
