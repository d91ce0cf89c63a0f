package dev.omnigraph.storage;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Lance's blob encoding of a {@code LargeBinary} column: the bytes are stored out of line, a scan returns
 * {@code Struct<position, size>} descriptors instead of them, and one blob's bytes are read by range
 * ({@link TableStorage#readBlob}). A schema asks for it with field metadata {@link #METADATA_KEY} = {@code "true"};
 * only Lance file format 2.1 keeps it (2.0 reads it back differently and 2.2 refuses it), so a table of another
 * format is given the plain column instead ({@link #forFormat}). A column keeps the encoding it was created
 * with: staged rows are always written in the dataset's own schema.
 */
public final class BlobEncoding {
    /** Lance's field metadata key for the (legacy, pre-2.2) blob encoding. */
    public static final String METADATA_KEY = "lance-encoding:blob";
    /** The only file format whose tables get blob-encoded columns. */
    static final String FORMAT = "2.1";

    private BlobEncoding() {
    }

    /** {@code metadata} plus the blob-encoding marker, for a {@code LargeBinary} field of a new schema. */
    public static Map<String, String> marked(Map<String, String> metadata) {
        Map<String, String> out = new HashMap<>(metadata);
        out.put(METADATA_KEY, "true");
        return Map.copyOf(out);
    }

    /** True when {@code field} is a {@code LargeBinary} column stored with the blob encoding. */
    public static boolean isEncoded(Field field) {
        return field.getType() instanceof ArrowType.LargeBinary
                && "true".equals(field.getMetadata() == null ? null : field.getMetadata().get(METADATA_KEY));
    }

    /** {@code schema} as a table of file format {@code format} stores it: the blob marker dropped unless 2.1. */
    static Schema forFormat(Schema schema, String format) {
        if (FORMAT.equals(format) || schema.getFields().stream().noneMatch(f -> f.getMetadata().containsKey(METADATA_KEY))) {
            return schema;
        }
        List<Field> fields = new ArrayList<>(schema.getFields().size());
        for (Field f : schema.getFields()) {
            if (!f.getMetadata().containsKey(METADATA_KEY)) {
                fields.add(f);
                continue;
            }
            Map<String, String> metadata = new HashMap<>(f.getMetadata());
            metadata.remove(METADATA_KEY);
            fields.add(new Field(f.getName(), new FieldType(f.isNullable(), f.getType(), f.getDictionary(), metadata),
                    f.getChildren()));
        }
        return new Schema(fields, schema.getCustomMetadata());
    }
}
