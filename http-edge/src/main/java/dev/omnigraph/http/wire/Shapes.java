package dev.omnigraph.http.wire;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.GraphSnapshot;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.TableInfo;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestSchema;
import dev.omnigraph.storage.manifest.TableDelta;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeMap;

/** The response bodies of the reference surface, built once and shared by the HTTP routes and the CLI's --json. */
public final class Shapes {
    public static final String VERSION = "0.1.0";

    private Shapes() {
    }

    /** {@code CommitOutput}: genesis has no parent; the second parent (if any) is the merged one; main is null. */
    public static ObjectNode commit(GraphCommit commit) {
        ObjectNode out = Json.object();
        out.put("graph_commit_id", commit.id());
        out.put("graph_branch", commit.branch().filter(b -> !b.equals(GraphBranches.MAIN)).orElse(null));
        out.put("graph_manifest_version", commit.manifestVersion());
        out.put("parent_commit_id", commit.parentIds().isEmpty() ? null : commit.parentIds().get(0));
        out.put("merged_parent_commit_id", commit.parentIds().size() > 1 ? commit.parentIds().get(1) : null);
        out.put("actor_id", commit.actorId().orElse(null));
        out.put("created_at", commit.createdAtMicros());
        return out;
    }

    public static ObjectNode commits(List<GraphCommit> commits) {
        ObjectNode out = Json.object();
        ArrayNode list = out.putArray("commits");
        commits.forEach(c -> list.add(commit(c)));
        return out;
    }

    /** {@code SnapshotOutput}, plus {@code graph_commit_id} (the head the snapshot was served from). */
    public static ObjectNode snapshot(GraphSnapshot snapshot) {
        ObjectNode out = Json.object();
        out.put("graph_branch", snapshot.branch());
        out.put("graph_manifest_version", snapshot.manifestVersion());
        out.put("internal_schema_version", ManifestSchema.INTERNAL_SCHEMA_VERSION);
        out.put("graph_commit_id", snapshot.graphCommitId().orElse(null));
        ArrayNode datasets = out.putArray("datasets");
        for (TableInfo table : snapshot.tables()) {
            ObjectNode d = datasets.addObject();
            d.put("entity_kind", table.kind());
            d.put("type_name", table.typeName());
            d.put("dataset_path", table.path());
            d.put("published_dataset_version", table.version());
            d.put("entity_count", table.rowCount());
            table.lanceBranch().ifPresent(b -> d.put("native_dataset_branch", b));
        }
        return out;
    }

    public static ObjectNode health() {
        ObjectNode out = Json.object();
        out.put("status", "ok");
        out.put("version", VERSION);
        out.put("internal_schema_version", ManifestSchema.INTERNAL_SCHEMA_VERSION);
        return out;
    }

    /** {@code ChangeOutput} of a mutation: commit is null when nothing changed. */
    public static ObjectNode mutation(String branch, String queryName, WriteOutcome outcome, Optional<String> actor) {
        ObjectNode out = Json.object();
        out.put("branch", branch);
        out.put("query_name", queryName);
        out.put("affected_nodes", outcome.affectedNodes());
        out.put("affected_edges", outcome.affectedEdges());
        out.put("actor_id", actor.orElse(null));
        out.set("commit", outcome.commit().map(Shapes::commit).map(c -> (com.fasterxml.jackson.databind.JsonNode) c)
                .orElse(Json.value(null)));
        return out;
    }

    /**
     * {@code GraphBatchLoadOutput} (plus {@code uri} for the JSON-envelope route): every loaded type, and every type
     * the commit touched (an emptied overwrite type: 0), with its {@code entities_loaded}, sorted by name.
     */
    public static ObjectNode load(String branch, Optional<String> baseBranch, LoadMode mode, WriteOutcome outcome,
                                  Optional<String> actor, Optional<String> uri) {
        return load(branch, baseBranch, false, mode, outcome, actor, uri);
    }

    /** As above; {@code branchCreated}: the load created {@code branch} from {@code baseBranch} first. */
    public static ObjectNode load(String branch, Optional<String> baseBranch, boolean branchCreated, LoadMode mode,
                                  WriteOutcome outcome, Optional<String> actor, Optional<String> uri) {
        ObjectNode out = Json.object();
        uri.ifPresent(u -> out.put("uri", u));
        out.put("branch", branch);
        out.put("base_branch", baseBranch.orElse(null));
        out.put("branch_created", branchCreated);
        out.put("mode", mode.name().toLowerCase(Locale.ROOT));
        TreeMap<String, Long> nodes = new TreeMap<>(outcome.byType("node"));
        TreeMap<String, Long> edges = new TreeMap<>(outcome.byType("edge"));
        for (TableDelta delta : outcome.commit().map(GraphCommit::deltas).orElse(List.of())) {
            String key = delta.tableKey();
            String name = key.substring(key.indexOf(':') + 1);
            (key.startsWith("edge:") ? edges : nodes).putIfAbsent(name, 0L);
        }
        out.set("nodes", declarations(nodes));
        out.set("edges", declarations(edges));
        out.put("total_entities", outcome.affectedNodes() + outcome.affectedEdges());
        out.put("affected_nodes", outcome.affectedNodes());
        out.put("affected_edges", outcome.affectedEdges());
        out.put("actor_id", actor.orElse(null));
        out.set("commit", outcome.commit().map(Shapes::commit).map(c -> (com.fasterxml.jackson.databind.JsonNode) c)
                .orElse(Json.value(null)));
        return out;
    }

    private static ArrayNode declarations(TreeMap<String, Long> loaded) {
        ArrayNode out = Json.array();
        loaded.forEach((name, count) -> out.addObject().put("name", name).put("entities_loaded", count));
        return out;
    }

    /**
     * One row of the recovery audit log: what recovery did with one interrupted write. {@code graph_commit_id} is
     * the commit recovery published (the original when rolled forward, the rollback when rolled back), or null.
     */
    public static ObjectNode recovery(RecoveryRecord record) {
        ObjectNode out = Json.object();
        out.put("operation_id", record.operationId());
        out.put("kind", switch (record.kind()) {
            case RolledForward -> "rolled_forward";
            case RolledBack -> "rolled_back";
            case OrphanedBranchDiscarded -> "orphaned_branch_discarded";
        });
        out.put("graph_commit_id", record.graphCommitId().orElse(null));
        out.put("recovery_for_actor", record.recoveryForActor().orElse(null));
        out.put("sidecar_writer_kind", record.sidecarWriterKind());
        Instant at = record.createdAt();
        out.put("created_at", at.getEpochSecond() * 1_000_000L + at.getNano() / 1_000L);
        ArrayNode tables = out.putArray("tables");
        for (RecoveryRecord.TableOutcome table : record.tables()) {
            String key = table.tableKey();
            tables.addObject()
                    .put("entity_kind", key.substring(0, Math.max(key.indexOf(':'), 0)))
                    .put("type_name", key.substring(key.indexOf(':') + 1))
                    .put("from_version", table.fromVersion())
                    .put("to_version", table.toVersion());
        }
        return out;
    }

    public static ObjectNode recoveries(List<RecoveryRecord> records) {
        ObjectNode out = Json.object();
        ArrayNode list = out.putArray("recoveries");
        records.forEach(r -> list.add(recovery(r)));
        return out;
    }

    /** {@code ReadTargetOutput}: exactly one of branch / snapshot is set. */
    public static ObjectNode target(ReadTarget target) {
        ObjectNode out = Json.object();
        if (target instanceof ReadTarget.Commit commit) {
            out.putNull("branch");
            out.put("snapshot", commit.commitId());
        } else {
            out.put("branch", ((ReadTarget.Branch) target).name());
            out.putNull("snapshot");
        }
        return out;
    }

    /** {@code POST /branches} and {@code branch create --json}: {@code {uri, from, name, actor_id}}. */
    public static ObjectNode branchCreated(String uri, String from, String name, Optional<String> actor) {
        ObjectNode out = Json.object();
        out.put("uri", uri);
        out.put("from", from);
        out.put("name", name);
        out.put("actor_id", actor.orElse(null));
        return out;
    }

    /** {@code DELETE /branches/{branch}} and {@code branch delete --json}; {@code unreclaimed_forks} only when some are. */
    public static ObjectNode branchDeleted(String uri, String name, Optional<String> actor, List<String> leftovers) {
        ObjectNode out = Json.object();
        out.put("uri", uri);
        out.put("name", name);
        out.put("actor_id", actor.orElse(null));
        if (!leftovers.isEmpty()) {
            ArrayNode forks = out.putArray("unreclaimed_forks");
            leftovers.forEach(forks::add);
        }
        return out;
    }
}
