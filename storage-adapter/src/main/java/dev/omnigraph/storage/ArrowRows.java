package dev.omnigraph.storage;

import dev.omnigraph.storage.error.ValidationError;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Converts between on-heap rows and Arrow vectors. The single place that decides the Java value of each Arrow
 * type, and the single place that builds write batches, always from the dataset's own schema (a batch whose
 * column order or types differ from the dataset is accepted by Lance and then aborts the JVM on the first scan).
 *
 * <p>Java values: Utf8 → String; LargeBinary → byte[]; Bool → Boolean; Int32 → Integer; Int64 → Long; UInt32 → Long; UInt64 → Long
 * (unsigned bits); Float32 → Float; Float64 → Double; Date32 → LocalDate; Date64 → Instant (ms);
 * Timestamp(µs) → Instant; FixedSizeList&lt;Float32&gt; → List&lt;Float&gt;; List&lt;T&gt; → List&lt;T&gt;.
 */
public final class ArrowRows {
    private ArrowRows() {
    }

    /** Copies rows {@code [0, rowCount)} of {@code root} onto the heap. */
    public static List<Map<String, Object>> read(VectorSchemaRoot root) {
        List<FieldVector> vectors = root.getFieldVectors();
        int rows = root.getRowCount();
        List<Map<String, Object>> out = new ArrayList<>(rows);
        for (int i = 0; i < rows; i++) {
            Map<String, Object> row = new LinkedHashMap<>(vectors.size() * 2);
            for (FieldVector vector : vectors) {
                row.put(vector.getName(), valueAt(vector, i));
            }
            out.add(Collections.unmodifiableMap(row));
        }
        return out;
    }

    static Object valueAt(ValueVector vector, int index) {
        if (vector.isNull(index)) {
            return null;
        }
        if (vector instanceof VarCharVector v) return new String(v.get(index), StandardCharsets.UTF_8);
        if (vector instanceof LargeVarBinaryVector v) return v.get(index);
        if (vector instanceof BitVector v) return v.get(index) != 0;
        if (vector instanceof IntVector v) return v.get(index);
        if (vector instanceof BigIntVector v) return v.get(index);
        if (vector instanceof UInt4Vector v) return v.getValueAsLong(index);
        if (vector instanceof UInt8Vector v) return v.get(index);
        if (vector instanceof Float4Vector v) return v.get(index);
        if (vector instanceof Float8Vector v) return v.get(index);
        if (vector instanceof DateDayVector v) return LocalDate.ofEpochDay(v.get(index));
        if (vector instanceof DateMilliVector v) return Instant.ofEpochMilli(v.get(index));
        if (vector instanceof TimeStampMicroTZVector v) return micros(v.get(index));
        if (vector instanceof FixedSizeListVector v) {
            int width = v.getListSize();
            List<Object> items = new ArrayList<>(width);
            for (int k = 0; k < width; k++) items.add(valueAt(v.getDataVector(), index * width + k));
            return Collections.unmodifiableList(items);
        }
        if (vector instanceof ListVector v) {
            int start = v.getElementStartIndex(index);
            int end = v.getElementEndIndex(index);
            List<Object> items = new ArrayList<>(end - start);
            for (int k = start; k < end; k++) items.add(valueAt(v.getDataVector(), k));
            return Collections.unmodifiableList(items);
        }
        throw new UnsupportedOperationException("no Java mapping for Arrow vector " + vector.getField());
    }

    private static Instant micros(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }

    /**
     * Builds a root with exactly {@code schema}'s fields (order, types, nullability) holding {@code rows}.
     * Unknown columns, missing non-nullable values and values of the wrong Java type are refused with a
     * {@link ValidationError} naming the column, before anything reaches Lance. The caller closes the root.
     */
    public static VectorSchemaRoot build(String table, Schema schema, List<Map<String, Object>> rows,
                                         BufferAllocator allocator) {
        Set<String> known = new HashSet<>();
        schema.getFields().forEach(field -> known.add(field.getName()));
        for (Map<String, Object> row : rows) {
            for (String column : row.keySet()) {
                if (!known.contains(column)) {
                    throw new ValidationError(table, column, idOf(row), "column '" + column + "' is not in the schema of " + table);
                }
            }
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        try {
            // Sized for the rows up front: growing from the default capacity would reallocate and copy each
            // vector a few times for a load's 8,192 rows.
            if (!rows.isEmpty()) root.getFieldVectors().forEach(vector -> vector.setInitialCapacity(rows.size()));
            root.allocateNew();
            for (FieldVector vector : root.getFieldVectors()) {
                Field field = vector.getField();
                for (int i = 0; i < rows.size(); i++) {
                    Object value = rows.get(i).get(field.getName());
                    if (value == null) {
                        if (!field.isNullable()) {
                            throw new ValidationError(table, field.getName(), idOf(rows.get(i)),
                                    "column '" + field.getName() + "' of " + table + " must not be null");
                        }
                        vector.setNull(i);
                    } else {
                        write(table, vector, i, value, rows.get(i));
                    }
                }
                vector.setValueCount(rows.size());
            }
            root.setRowCount(rows.size());
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    /** UTF-8 of {@code text}; NUL or a lone surrogate (which getBytes would turn into '?') is refused. */
    private static byte[] encodable(String table, ValueVector vector, String text, Map<String, Object> row) {
        String problem = ValidText.problem(text);
        if (problem != null) {
            throw new ValidationError(table, vector.getName(), idOf(row), "column '" + vector.getName() + "' of " + table
                    + " " + problem);
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void write(String table, ValueVector vector, int index, Object value, Map<String, Object> row) {
        try {
            if (vector instanceof VarCharVector v) v.setSafe(index, encodable(table, v, (String) value, row));
            else if (vector instanceof LargeVarBinaryVector v) v.setSafe(index, (byte[]) value);
            else if (vector instanceof BitVector v) v.setSafe(index, ((Boolean) value) ? 1 : 0);
            else if (vector instanceof IntVector v) v.setSafe(index, (Integer) value);
            else if (vector instanceof BigIntVector v) v.setSafe(index, ((Number) requireIntegral(value)).longValue());
            else if (vector instanceof UInt4Vector v) v.setSafe(index, (int) unsigned32(value));
            else if (vector instanceof UInt8Vector v) v.setSafe(index, ((Number) requireIntegral(value)).longValue());
            else if (vector instanceof Float4Vector v) v.setSafe(index, (Float) value);
            else if (vector instanceof Float8Vector v) v.setSafe(index, ((Number) requireFloating(value)).doubleValue());
            else if (vector instanceof DateDayVector v) v.setSafe(index, Math.toIntExact(((LocalDate) value).toEpochDay()));
            else if (vector instanceof DateMilliVector v) v.setSafe(index, ((Instant) value).toEpochMilli());
            else if (vector instanceof TimeStampMicroTZVector v) v.setSafe(index, toMicros((Instant) value));
            else if (vector instanceof FixedSizeListVector v) writeFixedList(table, v, index, (List<?>) value, row);
            else if (vector instanceof ListVector v) writeList(table, v, index, (List<?>) value, row);
            else throw new UnsupportedOperationException("no Java mapping for Arrow vector " + vector.getField());
        } catch (ClassCastException | ArithmeticException e) {
            throw new ValidationError(table, vector.getName(), idOf(row), "column '" + vector.getName() + "' of " + table
                    + " expects " + vector.getField().getType() + ", got " + value.getClass().getSimpleName() + " '" + value + "'");
        }
    }

    private static Object requireIntegral(Object value) {
        if (value instanceof Long || value instanceof Integer) return value;
        throw new ClassCastException();
    }

    private static Object requireFloating(Object value) {
        if (value instanceof Double || value instanceof Float) return value;
        throw new ClassCastException();
    }

    private static long unsigned32(Object value) {
        long v = ((Number) requireIntegral(value)).longValue();
        if (v < 0 || v > 0xFFFF_FFFFL) throw new ArithmeticException();
        return v;
    }

    private static long toMicros(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000L);
    }

    private static void writeFixedList(String table, FixedSizeListVector vector, int index, List<?> items, Map<String, Object> row) {
        int width = vector.getListSize();
        if (items.size() != width) {
            throw new ValidationError(table, vector.getName(), idOf(row), "column '" + vector.getName() + "' of " + table
                    + " expects a vector of " + width + " values, got " + items.size());
        }
        vector.startNewValue(index);
        ValueVector data = vector.getDataVector();
        for (int k = 0; k < width; k++) {
            Object item = items.get(k);
            if (item == null) setNullSafe(data, index * width + k);
            else write(table, data, index * width + k, item, row);
        }
        data.setValueCount(Math.max(data.getValueCount(), (index + 1) * width));
    }

    private static void writeList(String table, ListVector vector, int index, List<?> items, Map<String, Object> row) {
        int start = vector.startNewValue(index);
        ValueVector data = vector.getDataVector();
        for (int k = 0; k < items.size(); k++) {
            Object item = items.get(k);
            if (item == null) setNullSafe(data, start + k);
            else write(table, data, start + k, item, row);
        }
        data.setValueCount(start + items.size());
        vector.endValue(index, items.size());
    }

    private static void setNullSafe(ValueVector data, int index) {
        while (data.getValueCapacity() <= index) {
            data.reAlloc();
        }
        if (data instanceof FieldVector field) {
            field.setNull(index);
        }
    }

    private static String idOf(Map<String, Object> row) {
        Object id = row.get("id");
        return id == null ? null : id.toString();
    }
}
