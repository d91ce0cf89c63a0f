package dev.omnigraph.http.wire;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.maintain.OptimizeResult;
import dev.omnigraph.engine.maintain.Repair;
import java.util.List;

/** The JSON of {@code optimize} and {@code repair}, shared by the CLI's {@code --json} and the HTTP routes. */
public final class MaintenanceShapes {
    private MaintenanceShapes() {
    }

    /** {@code {graph_commit_id, compacted:[…], indexed:[…], skipped_drift:[…], already_compact}}. */
    public static ObjectNode optimize(OptimizeResult result) {
        ObjectNode out = Json.object();
        if (result.commitId().isPresent()) out.put("graph_commit_id", result.commitId().get());
        else out.putNull("graph_commit_id");
        ArrayNode compacted = out.putArray("compacted");
        result.compacted().forEach(table -> compacted.addObject().put("table_key", table.tableKey())
                .put("from_version", table.fromVersion()).put("to_version", table.toVersion())
                .put("fragments_before", table.fragmentsBefore()).put("fragments_after", table.fragmentsAfter()));
        ArrayNode indexed = out.putArray("indexed");
        result.indexed().forEach(table -> {
            ObjectNode item = indexed.addObject().put("table_key", table.tableKey());
            table.indexes().forEach(item.putArray("indexes")::add);
        });
        ArrayNode skipped = out.putArray("skipped_drift");
        result.skipped().forEach(table -> skipped.addObject().put("table_key", table.tableKey())
                .put("published_version", table.published()).put("head_version", table.head()));
        out.put("already_compact", result.alreadyCompact());
        return out;
    }

    /** {@code {drift:[{branch, table_key, published_version, head_version, kind, operations, published}]}}. */
    public static ObjectNode repair(List<Repair.Drift> drifts) {
        ObjectNode out = Json.object();
        ArrayNode list = out.putArray("drift");
        for (Repair.Drift drift : drifts) {
            ObjectNode item = list.addObject().put("branch", drift.branch()).put("table_key", drift.tableKey())
                    .put("published_version", drift.published()).put("head_version", drift.head())
                    .put("kind", kind(drift.kind()));
            drift.operations().forEach(item.putArray("operations")::add);
            item.put("published", drift.publishedNow());
        }
        return out;
    }

    /** The wire name of a drift class. */
    public static String kind(Repair.Kind kind) {
        return switch (kind) {
            case VERIFIED_MAINTENANCE -> "verified_maintenance";
            case UNVERIFIED -> "unverified";
            case BEHIND_PIN -> "behind_pin";
        };
    }
}
