package dev.omnigraph.engine.evolve;

import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.SchemaFiles;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.ExpectedHead;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.ManifestSchema;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.PublishRequest;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one manifest publish of a schema apply, derived from the manifest state it was planned on, the target
 * catalog and the versions its effects landed at: registrations (new types), re-pins (rewrites), renames (same
 * object id under the new key) and tombstones (dropped types). The applier and its recovery derive it the same
 * way, so a roll-forward publishes exactly what the writer would have.
 */
final class ApplyDelta {
    /** A table version an effect achieved. */
    record Landed(long version, long rowCount) {
    }

    private ApplyDelta() {
    }

    /** The publish; its stamp records {@code target}'s schema identity, which every later write token must carry. */
    static PublishRequest request(ManifestState state, BranchIdentity main, SchemaFiles.Accepted accepted,
                                  Map<String, Landed> landed, Sidecar.Lineage lineage) {
        Catalog target = accepted.catalog();
        Map<String, TableEntry> live = new HashMap<>();
        state.liveTables().forEach(entry -> live.put(entry.objectId(), entry));
        Map<String, Long> expected = new LinkedHashMap<>();
        List<TableEntry> updates = new ArrayList<>();
        for (CatalogTable table : target.tables()) {
            TableEntry entry = live.remove(ManifestSchema.tableObjectId(table.typeId(), table.incarnationId()));
            Landed achieved = landed.get(table.tableKey());
            if (entry == null) {
                if (achieved == null) {
                    throw new IllegalStateException("new table " + table.tableKey() + " has no created version");
                }
                expected.put(table.tableKey(), 0L);
                updates.add(new TableEntry(table.tableKey(), table.typeId(), table.incarnationId(), table.datasetPath(),
                        achieved.version(), Optional.empty(), achieved.rowCount(), false));
                continue;
            }
            boolean renamed = !entry.tableKey().equals(table.tableKey());
            if (achieved == null && !renamed) {
                continue;
            }
            expected.put(entry.tableKey(), entry.version());
            expected.put(table.tableKey(), renamed ? 0L : entry.version());
            updates.add(new TableEntry(table.tableKey(), entry.stableTableId(), entry.incarnationId(), entry.location(),
                    achieved == null ? entry.version() : achieved.version(), entry.lanceBranch(),
                    achieved == null ? entry.rowCount() : achieved.rowCount(), false));
        }
        for (TableEntry gone : live.values()) {
            expected.put(gone.tableKey(), gone.version());
            updates.add(new TableEntry(gone.tableKey(), gone.stableTableId(), gone.incarnationId(), gone.location(),
                    gone.version(), gone.lanceBranch(), gone.rowCount(), true));
        }
        return new PublishRequest(GraphBranches.MAIN, new ExpectedHead.Exact(state.head()), Optional.of(main), expected,
                updates, lineage.graphCommitId(), Optional.empty(), Optional.ofNullable(lineage.actorId()),
                lineage.createdAt(), lineage.operation()).withSchemaIdentity(accepted.state().schemaIrHash());
    }
}
