package dev.omnigraph.storage.manifest;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Shape of the {@code __manifest} dataset. Rows are current state, replaced in place by each publish
 * (stamp, one table row per registered table, one graph_head row per branch), plus append-only graph_commit
 * rows. The state as of an older commit is the manifest's own older Lance version, recorded on the commit row.
 */
public final class ManifestSchema {
    public static final String DIRECTORY = "__manifest";
    /** The storage format this build writes and serves. */
    public static final int INTERNAL_SCHEMA_VERSION = 6;

    public static final String OBJECT_ID = "object_id";
    public static final String OBJECT_TYPE = "object_type";
    public static final String TABLE_KEY = "table_key";
    public static final String LOCATION = "location";
    public static final String STABLE_TABLE_ID = "stable_table_id";
    public static final String TABLE_INCARNATION_ID = "table_incarnation_id";
    public static final String TABLE_VERSION = "table_version";
    public static final String TABLE_BRANCH = "table_branch";
    public static final String ROW_COUNT = "row_count";
    public static final String TOMBSTONE = "tombstone";
    public static final String METADATA = "metadata";

    public static final String TYPE_STAMP = "stamp";
    public static final String TYPE_TABLE = "table";
    public static final String TYPE_HEAD = "graph_head";
    public static final String TYPE_COMMIT = "graph_commit";

    public static final String STAMP_ID = "stamp";

    /**
     * Lance field metadata asking for zstd on a column's value buffers. Lineage rows are compacted into fragments of
     * thousands of rows whose text (commit ids, metadata JSON) is repetitive: zstd stores a compacted commit row in
     * about a quarter of its plain bytes. The logical rows are unchanged; a manifest created without it (before
     * session 7) keeps its plain encoding, since every later write uses the dataset's own schema.
     */
    public static final Map<String, String> ZSTD = Map.of("lance-encoding:compression", "zstd");

    public static final Schema SCHEMA = new Schema(List.of(
            text(OBJECT_ID, false, Map.of("lance-schema:unenforced-primary-key", "true")),
            text(OBJECT_TYPE, false, Map.of()),
            text(TABLE_KEY, true, Map.of()),
            text(LOCATION, true, Map.of()),
            Field.nullable(STABLE_TABLE_ID, new ArrowType.Int(64, false)),
            Field.nullable(TABLE_INCARNATION_ID, new ArrowType.Int(64, false)),
            Field.nullable(TABLE_VERSION, new ArrowType.Int(64, false)),
            text(TABLE_BRANCH, true, Map.of()),
            Field.nullable(ROW_COUNT, new ArrowType.Int(64, false)),
            Field.nullable(TOMBSTONE, new ArrowType.Bool()),
            text(METADATA, true, Map.of())));

    private ManifestSchema() {
    }

    private static Field text(String name, boolean nullable, Map<String, String> metadata) {
        Map<String, String> all = new HashMap<>(metadata);
        all.putAll(ZSTD);
        return new Field(name, new FieldType(nullable, new ArrowType.Utf8(), null, Map.copyOf(all)), null);
    }

    public static String tableObjectId(long stableTableId, long incarnationId) {
        return String.format("table:%016x:%016x", stableTableId, incarnationId);
    }

    public static String headObjectId(String branch) {
        return "graph_head:" + branch;
    }
}
