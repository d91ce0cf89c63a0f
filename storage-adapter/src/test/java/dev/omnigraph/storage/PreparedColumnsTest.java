package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.error.ValidationError;
import java.time.Instant;
import java.time.LocalDate;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * Columns encoded ahead of staging hold exactly what {@link ArrowRows#build} builds from the same rows, are given up
 * on whatever that would refuse (so the staging reports its usual error), and are used only for the very rows they
 * encoded.
 */
class PreparedColumnsTest extends LanceStorageTestBase {
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Utf8()), null),
            Field.nullable("name", new ArrowType.Utf8()),
            Field.nullable("age", new ArrowType.Int(32, true)),
            Field.nullable("count", new ArrowType.Int(64, true)),
            Field.nullable("score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
            Field.nullable("active", new ArrowType.Bool()),
            Field.nullable("weight", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
            Field.nullable("born", new ArrowType.Date(DateUnit.DAY)),
            Field.nullable("seen", new ArrowType.Date(DateUnit.MILLISECOND))));

    /** A row map that names its batch's columns, as a load's rows do. */
    static final class Row extends AbstractMap<String, Object> implements PreparedColumns.Carrier {
        final Map<String, Object> values;
        PreparedColumns prepared;

        Row(Map<String, Object> values) {
            this.values = values;
        }

        @Override
        public Set<Entry<String, Object>> entrySet() {
            return values.entrySet();
        }

        @Override
        public Object get(Object key) {
            return values.get(key);
        }

        @Override
        public PreparedColumns preparedColumns() {
            return prepared;
        }
    }

    static Row row(Object... keysAndValues) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            values.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return new Row(values);
    }

    static List<Map<String, Object>> mixed() {
        List<Map<String, Object>> rows = new ArrayList<>();
        rows.add(row("id", "a", "name", "plain", "age", 3, "count", 7L, "score", 1.5, "active", true, "weight", 2.5f,
                "born", LocalDate.of(1970, 1, 2), "seen", Instant.ofEpochMilli(1_700_000_000_123L)));
        rows.add(row("id", "old", "born", LocalDate.of(1900, 2, 28), "seen", Instant.ofEpochMilli(-5L), "weight", null));
        rows.add(row("id", "b", "name", "caf\u00e9 \uD83D\uDE00 \u65e5\u672c", "age", null, "count", 8, "score", 2.5f));
        rows.add(row("id", "c"));
        rows.add(row("id", "", "name", "", "age", -1, "count", Long.MIN_VALUE, "score", Double.NaN, "active", false));
        for (int i = 0; i < 600; i++) { // past the initial capacities
            rows.add(row("id", "r" + i, "name", i % 3 == 0 ? null : "n\u00e4me" + i, "age", i, "count", (long) i * i));
        }
        return rows;
    }

    static PreparedColumns encode(Schema schema, List<Map<String, Object>> rows) {
        PreparedColumns.Builder builder = PreparedColumns.builder(schema, 4);
        rows.forEach(builder::add);
        return builder.build();
    }

    @Test
    void encodesWhatArrowRowsBuilds() {
        List<Map<String, Object>> rows = mixed();
        PreparedColumns prepared = encode(SCHEMA, rows);
        assertThat(prepared).isNotNull();
        try (BufferAllocator allocator = new RootAllocator();
             VectorSchemaRoot expected = ArrowRows.build("t", SCHEMA, rows, allocator);
             VectorSchemaRoot actual = prepared.toRoot(SCHEMA, allocator)) {
            assertThat(actual.getRowCount()).isEqualTo(rows.size());
            assertThat(ArrowRows.read(actual)).isEqualTo(ArrowRows.read(expected));
            // The same columns fill a second root alike (a replanned load stages them again).
            try (VectorSchemaRoot again = prepared.toRoot(SCHEMA, allocator)) {
                assertThat(ArrowRows.read(again)).isEqualTo(ArrowRows.read(expected));
            }
        }
    }

    @Test
    void givesUpOnWhatArrowRowsWouldRefuseOrConvertOtherwise() {
        List<Map<String, Object>> refused = List.of(
                row("id", "nul", "name", "a\u0000b"),
                row("id", "lone", "name", "x\uD83Dy"),
                row("id", "low", "name", "\uDE00"),
                row("id", "unknown", "nickname", "z"),
                row("id", null),
                row("name", "no id"),
                row("id", "long", "age", 3L),
                row("id", "text", "count", "3"),
                row("id", "int", "score", 3),
                row("id", "bool", "active", "true"),
                row("id", 42),
                row("id", "float", "weight", 1.0),
                row("id", "instant", "born", Instant.EPOCH),
                row("id", "far", "born", LocalDate.MAX),
                row("id", "farther", "seen", Instant.MAX));
        for (Map<String, Object> bad : refused) {
            List<Map<String, Object>> rows = List.of(row("id", "ok", "name", "fine"), bad, row("id", "after"));
            assertThat(encode(SCHEMA, rows)).as("%s", bad).isNull();
            try (BufferAllocator allocator = new RootAllocator()) {
                assertThatThrownBy(() -> ArrowRows.build("t", SCHEMA, rows, allocator).close()).as("%s", bad)
                        .isInstanceOf(ValidationError.class);
            }
        }
        Schema binary = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Utf8()), null),
                Field.nullable("tags", new ArrowType.LargeBinary())));
        assertThat(encode(binary, List.of(row("id", "a")))).as("a type left to ArrowRows").isNull();
    }

    @Test
    void usedOnlyForTheRowsItEncodedInTheirOrderAndALikeSchema() {
        List<Map<String, Object>> rows = mixed();
        PreparedColumns prepared = encode(SCHEMA, rows);
        ((Row) rows.get(0)).prepared = prepared;
        assertThat(PreparedColumns.of(List.copyOf(rows), SCHEMA)).isSameAs(prepared);

        List<Map<String, Object>> swapped = new ArrayList<>(rows);
        swapped.set(1, rows.get(2));
        swapped.set(2, rows.get(1));
        assertThat(PreparedColumns.of(swapped, SCHEMA)).isNull();
        assertThat(PreparedColumns.of(rows.subList(0, 10), SCHEMA)).isNull();
        List<Map<String, Object>> copies = new ArrayList<>(rows);
        copies.set(5, row(new ArrayList<>(rows.get(5).entrySet()).stream()
                .flatMap(e -> java.util.stream.Stream.of(e.getKey(), e.getValue())).toArray()));
        assertThat(PreparedColumns.of(copies, SCHEMA)).as("an equal but other row object").isNull();

        List<Field> fields = new ArrayList<>(SCHEMA.getFields());
        fields.set(2, Field.nullable("age", new ArrowType.Int(64, true)));
        assertThat(PreparedColumns.of(rows, new Schema(fields))).as("another type").isNull();
        fields = new ArrayList<>(SCHEMA.getFields());
        fields.add(Field.nullable("extra", new ArrowType.Utf8()));
        assertThat(PreparedColumns.of(rows, new Schema(fields))).as("another column").isNull();
        fields = new ArrayList<>(SCHEMA.getFields());
        fields.set(0, fields.get(1));
        fields.set(1, SCHEMA.getFields().get(0));
        assertThat(PreparedColumns.of(rows, new Schema(fields))).as("another order").isNull();
        assertThat(PreparedColumns.of(rows, new Schema(SCHEMA.getFields(), Map.of("k", "v"))))
                .as("schema metadata does not change the layout").isSameAs(prepared);
    }

    @Test
    void stagedAppendOfPreparedRowsLandsTheRows() {
        TableSnapshot base = storage.create(dir.resolve("t").toString(), SCHEMA).block();
        List<Map<String, Object>> rows = mixed();
        ((Row) rows.get(0)).prepared = encode(SCHEMA, rows);
        storage.commitStaged(storage.stageAppend(base, rows, Map.of()).block()).block();
        TableSnapshot latest = storage.open(base.ref(), OptionalLong.empty()).block();
        List<Map<String, Object>> read = storage.scan(latest, ScanRequest.all()).flatMapIterable(RowBatch::rows)
                .collectList().block();
        List<Map<String, Object>> expected = new ArrayList<>();
        try (BufferAllocator allocator = new RootAllocator();
             VectorSchemaRoot built = ArrowRows.build("t", SCHEMA, rows, allocator)) {
            expected.addAll(ArrowRows.read(built));
        }
        assertThat(read.stream().map(HashMap::new).toList()).isEqualTo(expected.stream().map(HashMap::new).toList());
    }
}
