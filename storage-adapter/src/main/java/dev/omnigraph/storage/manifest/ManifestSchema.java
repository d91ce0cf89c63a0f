package dev.omnigraph.storage.manifest;

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

    public static final Schema SCHEMA = new Schema(List.of(
            new Field(OBJECT_ID, new FieldType(false, new ArrowType.Utf8(), null,
                    Map.of("lance-schema:unenforced-primary-key", "true")), null),
            Field.notNullable(OBJECT_TYPE, new ArrowType.Utf8()),
            Field.nullable(TABLE_KEY, new ArrowType.Utf8()),
            Field.nullable(LOCATION, new ArrowType.Utf8()),
            Field.nullable(STABLE_TABLE_ID, new ArrowType.Int(64, false)),
            Field.nullable(TABLE_INCARNATION_ID, new ArrowType.Int(64, false)),
            Field.nullable(TABLE_VERSION, new ArrowType.Int(64, false)),
            Field.nullable(TABLE_BRANCH, new ArrowType.Utf8()),
            Field.nullable(ROW_COUNT, new ArrowType.Int(64, false)),
            Field.nullable(TOMBSTONE, new ArrowType.Bool()),
            Field.nullable(METADATA, new ArrowType.Utf8())));

    private ManifestSchema() {
    }

    public static String tableObjectId(long stableTableId, long incarnationId) {
        return String.format("table:%016x:%016x", stableTableId, incarnationId);
    }

    public static String headObjectId(String branch) {
        return "graph_head:" + branch;
    }
}
