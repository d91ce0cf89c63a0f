package dev.omnigraph.engine.schema;

import dev.omnigraph.storage.BlobEncoding;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Physical Arrow schemas of node and edge datasets (storage-layout §3). */
final class ArrowSchemas {
    /** Lance reads this field metadata as "this column is the (unenforced) primary key"; set at create, immutable. */
    public static final String PRIMARY_KEY_METADATA = "lance-schema:unenforced-primary-key";
    /** Lifetime identity of a user column; survives renames. */
    public static final String STABLE_PROPERTY_ID_METADATA = "omnigraph.stable_property_id";
    public static final String ID = "id";
    public static final String SRC = "src";
    public static final String DST = "dst";
    static final String ITEM = "item";

    private ArrowSchemas() {}

    /** {@code id: Utf8 NOT NULL} (primary key) followed by the node's properties in physical order. */
    public static Schema nodeSchema(NodeType node, Map<String, Long> propertyIds) {
        List<Field> fields = new ArrayList<>();
        fields.add(idField());
        for (Property p : node.properties()) fields.add(field(p, idOf(propertyIds, node.name(), p)));
        return new Schema(fields);
    }

    /** {@code id, src, dst: Utf8 NOT NULL} (only {@code id} is the primary key) followed by the edge's properties. */
    public static Schema edgeSchema(EdgeType edge, Map<String, Long> propertyIds) {
        List<Field> fields = new ArrayList<>();
        fields.add(idField());
        fields.add(new Field(SRC, FieldType.notNullable(ArrowType.Utf8.INSTANCE), null));
        fields.add(new Field(DST, FieldType.notNullable(ArrowType.Utf8.INSTANCE), null));
        for (Property p : edge.properties()) fields.add(field(p, idOf(propertyIds, edge.name(), p)));
        return new Schema(fields);
    }

    private static Field idField() {
        return new Field(ID, new FieldType(false, ArrowType.Utf8.INSTANCE, null, Map.of(PRIMARY_KEY_METADATA, "true")), null);
    }

    private static long idOf(Map<String, Long> ids, String owner, Property p) {
        Long id = ids.get(p.name());
        if (id == null) throw new IllegalArgumentException("no stable property id for " + owner + "." + p.name());
        return id;
    }

    /** One user column; nullability from {@code ?}, list and vector children are nullable {@code item}s. */
    public static Field field(Property p, long stablePropertyId) {
        Map<String, String> metadata = Map.of(STABLE_PROPERTY_ID_METADATA, Long.toUnsignedString(stablePropertyId));
        PropertyType t = p.type();
        if (t instanceof PropertyType.ListOf l) {
            Field item = new Field(ITEM, FieldType.nullable(arrowType(l.element())), null);
            return new Field(p.name(), new FieldType(p.nullable(), ArrowType.List.INSTANCE, null, metadata), List.of(item));
        }
        if (t instanceof PropertyType.VectorOf v) {
            Field item = new Field(ITEM, FieldType.nullable(arrowType(ScalarKind.F32)), null);
            return new Field(p.name(), new FieldType(p.nullable(), new ArrowType.FixedSizeList(v.dim()), null, metadata),
                    List.of(item));
        }
        ArrowType type = t instanceof PropertyType.Scalar s ? arrowType(s.kind()) : ArrowType.Utf8.INSTANCE; // enums are Utf8
        if (t instanceof PropertyType.Scalar s && s.kind() == ScalarKind.BLOB) {
            metadata = BlobEncoding.marked(metadata); // read by range; a table of format 2.0 stores it plain
        }
        return new Field(p.name(), new FieldType(p.nullable(), type, null, metadata), null);
    }

    public static ArrowType arrowType(ScalarKind kind) {
        return switch (kind) {
            case STRING -> ArrowType.Utf8.INSTANCE;
            case BOOL -> ArrowType.Bool.INSTANCE;
            case I32 -> new ArrowType.Int(32, true);
            case I64 -> new ArrowType.Int(64, true);
            case U32 -> new ArrowType.Int(32, false);
            case U64 -> new ArrowType.Int(64, false);
            case F32 -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
            case F64 -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case DATE -> new ArrowType.Date(DateUnit.DAY);
            case DATETIME -> new ArrowType.Date(DateUnit.MILLISECOND);
            case BLOB -> ArrowType.LargeBinary.INSTANCE; // with Lance's blob encoding (field(...))
        };
    }
}
