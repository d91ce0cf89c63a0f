package dev.omnigraph.storage.manifest;

import static dev.omnigraph.storage.manifest.ManifestSchema.*;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.storage.error.StorageFault;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Encodes manifest facts as {@code __manifest} rows and decodes them back; the one place that knows the row format. */
final class ManifestRows {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Metadata member of a graph_commit row holding its {@link IdempotencyRecord}. */
    static final String IDEMPOTENCY = "idempotency";
    /** Metadata member of the stamp row: the epoch of the writer tenure that last published (0 when absent). */
    static final String WRITER_EPOCH = "writer_epoch";
    /**
     * Metadata member of the stamp row: the accepted schema identity (schema IR hash) the graph's data was published
     * under; written by init and by each schema apply's publish, carried by every other publish (absent on roots
     * stamped before it was recorded).
     */
    static final String SCHEMA_IDENTITY = "schema_ir_hash";

    private ManifestRows() {
    }

    static Map<String, Object> stamp(int internalSchemaVersion) {
        return stamp(internalSchemaVersion, 0);
    }

    /** The stamp row; {@code writerEpoch} is the writer tenure that wrote it (the publish fence), 0 = none. */
    static Map<String, Object> stamp(int internalSchemaVersion, long writerEpoch) {
        return stamp(internalSchemaVersion, writerEpoch, Optional.empty());
    }

    /** The stamp row, also recording the accepted schema identity when known. */
    static Map<String, Object> stamp(int internalSchemaVersion, long writerEpoch, Optional<String> schemaIdentity) {
        Map<String, Object> row = base(STAMP_ID, TYPE_STAMP);
        ObjectNode meta = JSON.createObjectNode().put("internal_schema_version", internalSchemaVersion)
                .put(WRITER_EPOCH, writerEpoch);
        schemaIdentity.ifPresent(identity -> meta.put(SCHEMA_IDENTITY, identity));
        row.put(METADATA, json(meta));
        return row;
    }

    static Map<String, Object> table(TableEntry entry) {
        Map<String, Object> row = base(entry.objectId(), TYPE_TABLE);
        row.put(TABLE_KEY, entry.tableKey());
        row.put(LOCATION, entry.location());
        row.put(STABLE_TABLE_ID, entry.stableTableId());
        row.put(TABLE_INCARNATION_ID, entry.incarnationId());
        row.put(TABLE_VERSION, entry.version());
        row.put(TABLE_BRANCH, entry.lanceBranch().orElse(null));
        row.put(ROW_COUNT, entry.rowCount());
        row.put(TOMBSTONE, entry.tombstone());
        return row;
    }

    static Map<String, Object> head(String branch, String commitId) {
        Map<String, Object> row = base(headObjectId(branch), TYPE_HEAD);
        row.put(TABLE_BRANCH, branch);
        row.put(METADATA, json(JSON.createObjectNode().put("head_commit_id", commitId)));
        return row;
    }

    static Map<String, Object> commit(GraphCommit commit) {
        return commit(commit, Optional.empty());
    }

    static Map<String, Object> commit(GraphCommit commit, Optional<IdempotencyRecord> idempotency) {
        Map<String, Object> row = base(commit.id(), TYPE_COMMIT);
        row.put(TABLE_VERSION, commit.manifestVersion());
        row.put(TABLE_BRANCH, commit.branch().orElse(null));
        ObjectNode meta = JSON.createObjectNode();
        ArrayNode parents = meta.putArray("parent_commit_ids");
        commit.parentIds().forEach(parents::add);
        commit.actorId().ifPresent(actor -> meta.put("actor_id", actor));
        meta.put("created_at", commit.createdAtMicros());
        meta.put("operation", commit.operation());
        ArrayNode deltas = meta.putArray("table_deltas");
        for (TableDelta delta : commit.deltas()) {
            deltas.addObject().put("table_key", delta.tableKey()).put("from_version", delta.fromVersion())
                    .put("to_version", delta.toVersion());
        }
        idempotency.ifPresent(record -> {
            ObjectNode recorded = meta.putObject(IDEMPOTENCY).put("key", record.key())
                    .put("request_hash", record.requestHash()).put("affected_nodes", record.affectedNodes())
                    .put("affected_edges", record.affectedEdges());
            ObjectNode byTable = recorded.putObject("entities_by_table");
            record.entitiesByTable().forEach(byTable::put);
        });
        row.put(METADATA, json(meta));
        return row;
    }

    static String type(Map<String, Object> row) {
        return (String) row.get(OBJECT_TYPE);
    }

    static int stampValue(Map<String, Object> row) {
        JsonNode meta = parse(row);
        JsonNode version = meta.get("internal_schema_version");
        if (version == null || !version.canConvertToInt()) {
            throw new IllegalArgumentException(version == null ? "missing" : version.toString());
        }
        return version.intValue();
    }

    static long stampEpoch(Map<String, Object> row) {
        JsonNode epoch = parse(row).get(WRITER_EPOCH);
        return epoch != null && epoch.canConvertToLong() ? epoch.longValue() : 0;
    }

    static Optional<String> stampSchemaIdentity(Map<String, Object> row) {
        JsonNode identity = parse(row).get(SCHEMA_IDENTITY);
        return identity != null && identity.isTextual() ? Optional.of(identity.asText()) : Optional.empty();
    }

    static TableEntry tableEntry(Map<String, Object> row) {
        return new TableEntry((String) row.get(TABLE_KEY), (Long) row.get(STABLE_TABLE_ID),
                (Long) row.get(TABLE_INCARNATION_ID), (String) row.get(LOCATION), (Long) row.get(TABLE_VERSION),
                Optional.ofNullable((String) row.get(TABLE_BRANCH)), (Long) row.get(ROW_COUNT),
                Boolean.TRUE.equals(row.get(TOMBSTONE)));
    }

    static String headBranch(Map<String, Object> row) {
        return (String) row.get(TABLE_BRANCH);
    }

    static String headCommitId(Map<String, Object> row) {
        return parse(row).path("head_commit_id").asText();
    }

    static GraphCommit graphCommit(Map<String, Object> row) {
        JsonNode meta = parse(row);
        List<String> parents = new ArrayList<>();
        meta.path("parent_commit_ids").forEach(node -> parents.add(node.asText()));
        List<TableDelta> deltas = new ArrayList<>();
        meta.path("table_deltas").forEach(node -> deltas.add(new TableDelta(node.path("table_key").asText(),
                node.path("from_version").asLong(), node.path("to_version").asLong())));
        return new GraphCommit((String) row.get(OBJECT_ID), parents, Optional.ofNullable((String) row.get(TABLE_BRANCH)),
                Optional.ofNullable(meta.hasNonNull("actor_id") ? meta.get("actor_id").asText() : null),
                meta.path("created_at").asLong(), meta.path("operation").asText(), deltas, (Long) row.get(TABLE_VERSION));
    }

    /** The idempotency record of a commit row, if its write carried a key. */
    static Optional<IdempotencyRecord> idempotency(Map<String, Object> row) {
        JsonNode record = parse(row).get(IDEMPOTENCY);
        if (record == null || !record.isObject()) {
            return Optional.empty();
        }
        java.util.SortedMap<String, Long> byTable = new java.util.TreeMap<>();
        record.path("entities_by_table").fields().forEachRemaining(e -> byTable.put(e.getKey(), e.getValue().asLong()));
        return Optional.of(new IdempotencyRecord(record.path("key").asText(), record.path("request_hash").asText(),
                record.path("affected_nodes").asLong(), record.path("affected_edges").asLong(), byTable));
    }

    private static Map<String, Object> base(String objectId, String objectType) {
        Map<String, Object> row = new HashMap<>();
        row.put(OBJECT_ID, objectId);
        row.put(OBJECT_TYPE, objectType);
        return row;
    }

    private static String json(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode parse(Map<String, Object> row) {
        String text = (String) row.get(METADATA);
        try {
            return text == null ? JSON.createObjectNode() : JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new StorageFault("corrupt metadata on manifest row " + row.get(OBJECT_ID) + ": " + e.getOriginalMessage(), e);
        }
    }
}
