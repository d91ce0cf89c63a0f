package dev.omnigraph.storage;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A write batch encoded column by column on the heap, off the storage threads (a load encodes its rows while its
 * input is still being parsed), so that the staging only copies the columns into Arrow vectors instead of building
 * them row map by row map ({@link ArrowRows#build}). Plain Java: no Arrow memory is held until the staging's
 * {@link #toRoot}, so a load that fails or is cancelled before staging leaves nothing to close.
 *
 * <p>It is only ever an acceleration with the same outcome. The encoding accepts exactly the values
 * {@link ArrowRows#build} would write and gives up on anything else (an unknown column, a null in a non-nullable
 * column, a value of another Java type, text with a NUL or an unpaired surrogate, a column type it does not
 * encode): then the staging builds from the rows as before and reports the same typed error. The staging uses
 * the columns only when the rows it was handed are the very row objects encoded, in the same order, and the
 * dataset's schema has the encoded layout (field names, types, nullability, in order); otherwise it builds
 * from the rows.
 */
public final class PreparedColumns {
    /** A row that can name the prepared columns of the batch it belongs to (the batch's first row does). */
    public interface Carrier {
        PreparedColumns preparedColumns();
    }

    private final List<Field> fields;
    private final Object[] rows;
    private final Column[] columns;

    private PreparedColumns(List<Field> fields, Object[] rows, Column[] columns) {
        this.fields = fields;
        this.rows = rows;
        this.columns = columns;
    }

    public int rowCount() {
        return rows.length;
    }

    /** An encoder of rows for {@code schema}; {@code expectedRows} sizes its arrays. */
    public static Builder builder(Schema schema, int expectedRows) {
        return new Builder(schema, Math.max(16, expectedRows));
    }

    /**
     * The prepared columns of exactly {@code rows} for a dataset of {@code schema}, or null: the first row must
     * carry them, they must hold the same row objects in the same order, and the layouts must agree.
     */
    static PreparedColumns of(List<Map<String, Object>> rows, Schema schema) {
        if (rows.isEmpty() || !(rows.get(0) instanceof Carrier carrier)) {
            return null;
        }
        PreparedColumns prepared = carrier.preparedColumns();
        if (prepared == null || prepared.rows.length != rows.size() || !sameLayout(prepared.fields, schema.getFields())) {
            return null;
        }
        int i = 0;
        for (Map<String, Object> row : rows) {
            if (row != prepared.rows[i++]) return null;
        }
        return prepared;
    }

    /** A root with exactly {@code schema}'s fields holding the encoded rows. The caller closes it. */
    VectorSchemaRoot toRoot(Schema schema, BufferAllocator allocator) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        try {
            List<FieldVector> vectors = root.getFieldVectors();
            for (int c = 0; c < columns.length; c++) {
                columns[c].fill(vectors.get(c), rows.length);
            }
            root.setRowCount(rows.length);
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    private static boolean sameLayout(List<Field> a, List<Field> b) {
        if (a.size() != b.size()) return false;
        for (int i = 0; i < a.size(); i++) {
            Field x = a.get(i);
            Field y = b.get(i);
            if (!x.getName().equals(y.getName()) || x.isNullable() != y.isNullable() || !x.getType().equals(y.getType())
                    || !x.getChildren().isEmpty() || !y.getChildren().isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** Encodes rows one at a time, on one thread; gives up (for good) on the first row it cannot encode. */
    public static final class Builder {
        private final List<Field> fields;
        private final String[] names;
        private Column[] columns;
        private List<Object> rows;

        private Builder(Schema schema, int expectedRows) {
            this.fields = List.copyOf(schema.getFields());
            this.names = fields.stream().map(Field::getName).toArray(String[]::new);
            Column[] made = new Column[fields.size()];
            for (int c = 0; c < made.length; c++) {
                made[c] = Column.of(fields.get(c).getType(), expectedRows);
                if (made[c] == null) {
                    return; // a type this encoder leaves to ArrowRows: given up from the start
                }
            }
            this.columns = made;
            this.rows = new ArrayList<>(expectedRows);
        }

        /** Whether every row so far was encoded (false once any could not be). */
        public boolean intact() {
            return columns != null;
        }

        /** Encodes {@code row}, or gives up when {@link ArrowRows#build} would refuse or convert it otherwise. */
        public void add(Map<String, Object> row) {
            if (columns == null) return;
            int index = rows.size();
            int keys = 0;
            for (int c = 0; c < columns.length; c++) {
                Object value = row.get(names[c]);
                boolean ok;
                if (value == null) {
                    if (row.containsKey(names[c])) keys++;
                    ok = fields.get(c).isNullable();
                    if (ok) columns[c].addNull(index);
                } else {
                    keys++;
                    ok = columns[c].add(index, value);
                }
                if (!ok) {
                    abandon();
                    return;
                }
            }
            if (keys != row.size()) { // a column the schema does not have
                abandon();
                return;
            }
            rows.add(row);
        }

        /** Gives up: the rows will be built by {@link ArrowRows#build} at staging. */
        public void abandon() {
            columns = null;
            rows = null;
        }

        /** The encoded batch, or null when the encoder gave up. */
        public PreparedColumns build() {
            return columns == null ? null : new PreparedColumns(fields, rows.toArray(), columns);
        }
    }

    /** One column's values on the heap; {@code add} answers false for a value it does not encode. */
    private abstract static class Column {
        boolean[] nulls;

        Column(int capacity) {
            nulls = new boolean[capacity];
        }

        static Column of(ArrowType type, int capacity) {
            if (type instanceof ArrowType.Utf8) return new Utf8Column(capacity);
            Fixed fixed = Fixed.of(type);
            return fixed == null ? null : new FixedColumn(fixed, capacity);
        }

        void addNull(int index) {
            ensure(index);
            nulls[index] = true;
        }

        void ensure(int index) {
            if (index >= nulls.length) nulls = Arrays.copyOf(nulls, Math.max(index + 1, nulls.length * 2));
        }

        abstract boolean add(int index, Object value);

        abstract void fill(FieldVector vector, int rows);
    }

    private static final class Utf8Column extends Column {
        private byte[] data;
        private int[] offsets; // offsets[i]..offsets[i + 1] are row i's bytes
        private int size;

        Utf8Column(int capacity) {
            super(capacity);
            data = new byte[capacity * 16];
            offsets = new int[capacity + 1];
        }

        @Override
        void ensure(int index) {
            super.ensure(index);
            if (index + 1 >= offsets.length) offsets = Arrays.copyOf(offsets, Math.max(index + 2, offsets.length * 2));
        }

        @Override
        void addNull(int index) {
            super.addNull(index);
            offsets[index + 1] = size; // a null row holds no bytes
        }

        @Override
        boolean add(int index, Object value) {
            if (!(value instanceof String text)) return false;
            ensure(index);
            int n = text.length();
            room(n);
            int at = size;
            for (int i = 0; i < n; i++) {
                char c = text.charAt(i);
                if (c == 0 || c > 0x7F) { // not U+0001..U+007F: NUL, non-ASCII or a surrogate, checked as ArrowRows does
                    if (ValidText.firstInvalid(text) >= 0) return false;
                    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
                    room(bytes.length);
                    System.arraycopy(bytes, 0, data, size, bytes.length);
                    at = size + bytes.length;
                    break;
                }
                data[at++] = (byte) c;
            }
            size = at;
            offsets[index + 1] = size;
            return true;
        }

        private void room(int more) {
            if (size + more > data.length) data = Arrays.copyOf(data, Math.max(size + more, data.length * 2));
        }

        @Override
        void fill(FieldVector vector, int rows) {
            VarCharVector v = (VarCharVector) vector;
            v.allocateNew(Math.max(1, size), rows);
            for (int i = 0; i < rows; i++) {
                if (nulls[i]) {
                    v.setNull(i);
                } else {
                    v.set(i, data, offsets[i], offsets[i + 1] - offsets[i]);
                }
            }
            v.setValueCount(rows);
        }
    }

    /**
     * The fixed-width types, each held as a long per row (floats by their bits, so every value, NaNs included,
     * comes back exactly): which Java values it takes (exactly those {@link ArrowRows#build} writes as is), how a
     * value becomes the long, and how the long is set into the type's vector.
     */
    /** One fixed-width Arrow type: which Java values it takes (exactly as ArrowRows), as a long, and back. */
    private enum Fixed {
        BOOL(value -> value instanceof Boolean, value -> (Boolean) value ? 1 : 0,
                (vector, row, value) -> ((BitVector) vector).set(row, (int) value)),
        // as ArrowRows: an Int32 column takes Integer only
        INT32(value -> value instanceof Integer, value -> (Integer) value,
                (vector, row, value) -> ((IntVector) vector).set(row, (int) value)),
        INT64(value -> value instanceof Long || value instanceof Integer, value -> ((Number) value).longValue(),
                (vector, row, value) -> ((BigIntVector) vector).set(row, value)),
        // as ArrowRows: a Float32 column takes Float only; floats travel as their bits
        FLOAT32(value -> value instanceof Float, value -> Float.floatToRawIntBits((Float) value),
                (vector, row, value) -> ((Float4Vector) vector).set(row, Float.intBitsToFloat((int) value))),
        FLOAT64(value -> value instanceof Double || value instanceof Float,
                value -> Double.doubleToRawLongBits(((Number) value).doubleValue()),
                (vector, row, value) -> ((Float8Vector) vector).set(row, Double.longBitsToDouble(value))),
        // days since the epoch; a LocalDate beyond an int's days is left to ArrowRows (which refuses it)
        DATE_DAY(value -> value instanceof LocalDate date && date.toEpochDay() == (int) date.toEpochDay(),
                value -> ((LocalDate) value).toEpochDay(),
                (vector, row, value) -> ((DateDayVector) vector).set(row, (int) value)),
        // milliseconds since the epoch; an Instant beyond a long's milliseconds is left to ArrowRows
        DATE_MILLI(Fixed::isMillisInstant, value -> ((Instant) value).toEpochMilli(),
                (vector, row, value) -> ((DateMilliVector) vector).set(row, value));

        @FunctionalInterface
        private interface Setter {
            void set(BaseFixedWidthVector vector, int row, long value);
        }

        private final java.util.function.Predicate<Object> accepts;
        private final java.util.function.ToLongFunction<Object> encode;
        private final Setter setter;

        Fixed(java.util.function.Predicate<Object> accepts, java.util.function.ToLongFunction<Object> encode,
              Setter setter) {
            this.accepts = accepts;
            this.encode = encode;
            this.setter = setter;
        }

        boolean accepts(Object value) {
            return accepts.test(value);
        }

        long encode(Object value) {
            return encode.applyAsLong(value);
        }

        void set(BaseFixedWidthVector vector, int row, long value) {
            setter.set(vector, row, value);
        }

        private static boolean isMillisInstant(Object value) {
            if (!(value instanceof Instant instant)) return false;
            try {
                instant.toEpochMilli();
                return true;
            } catch (ArithmeticException overflow) {
                return false;
            }
        }

        /** The handling of {@code type}, or null for a type this encoder leaves to ArrowRows. */
        static Fixed of(ArrowType type) {
            if (type instanceof ArrowType.Bool) return BOOL;
            if (type instanceof ArrowType.Int i && i.getIsSigned() && i.getBitWidth() == 32) return INT32;
            if (type instanceof ArrowType.Int i && i.getIsSigned() && i.getBitWidth() == 64) return INT64;
            if (type instanceof ArrowType.FloatingPoint f && f.getPrecision() == FloatingPointPrecision.SINGLE) return FLOAT32;
            if (type instanceof ArrowType.FloatingPoint f && f.getPrecision() == FloatingPointPrecision.DOUBLE) return FLOAT64;
            if (type instanceof ArrowType.Date d && d.getUnit() == DateUnit.DAY) return DATE_DAY;
            if (type instanceof ArrowType.Date d && d.getUnit() == DateUnit.MILLISECOND) return DATE_MILLI;
            return null;
        }
    }

    private static final class FixedColumn extends Column {
        private final Fixed kind;
        private long[] values;

        FixedColumn(Fixed kind, int capacity) {
            super(capacity);
            this.kind = kind;
            values = new long[capacity];
        }

        @Override
        boolean add(int index, Object value) {
            if (!kind.accepts(value)) return false;
            ensure(index);
            if (index >= values.length) values = Arrays.copyOf(values, nulls.length);
            values[index] = kind.encode(value);
            return true;
        }

        @Override
        void fill(FieldVector vector, int rows) {
            BaseFixedWidthVector v = (BaseFixedWidthVector) vector;
            v.allocateNew(rows);
            for (int i = 0; i < rows; i++) {
                if (nulls[i]) v.setNull(i);
                else kind.set(v, i, values[i]);
            }
            v.setValueCount(rows);
        }
    }
}
