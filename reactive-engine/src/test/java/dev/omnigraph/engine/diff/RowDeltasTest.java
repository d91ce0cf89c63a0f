package dev.omnigraph.engine.diff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.LanceTableStorage;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The row-delta engine on a real Lance dataset larger than a scanner batch on each side, with ids whose code-point
 * order differs from Java's UTF-16 order (a supplementary character beside a private-use one): inserts, updates,
 * deletes and unchanged rewrites all classified exactly, in id order, and resumable from any id.
 */
class RowDeltasTest {
    static final Duration WAIT = Duration.ofSeconds(120);
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
            new Field("v", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("tags", FieldType.nullable(ArrowType.List.INSTANCE),
                    List.of(new Field("item", FieldType.nullable(new ArrowType.Int(64, true)), null)))));

    @TempDir
    Path dir;
    final LanceTableStorage tables = StorageFixture.newTableStorage();

    @AfterEach
    void tearDown() {
        tables.close();
    }

    static Map<String, Object> row(String id, Long v) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("v", v);
        row.put("tags", v == null ? null : List.of(v % 7, 1L));
        return row;
    }

    TableSnapshot commitAppend(TableSnapshot at, List<Map<String, Object>> rows) {
        return tables.stageAppend(at, rows, Map.of()).flatMap(tables::commitStaged)
                .flatMap(c -> tables.open(at.ref(), OptionalLong.of(c.version()))).block(WAIT);
    }

    @Test
    void classifiesEveryRowOfTablesLargerThanABatchInCodePointOrder() {
        TableSnapshot empty = tables.create(dir.resolve("t").toString(), SCHEMA).block(WAIT);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 9_000; i++) ids.add(String.format("n%05d", i));
        ids.addAll(List.of("\uE000x", "\uD834\uDD1Ex", "é", "Z", "a"));
        List<Map<String, Object>> first = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) first.add(row(ids.get(i), (long) i));
        TableSnapshot before = commitAppend(empty, first);

        // Update every 3rd row, rewrite every 5th unchanged, delete every 7th, insert new ids.
        TreeMap<String, String> expected = new TreeMap<>(RowValues.ID_ORDER);
        List<Map<String, Object>> upserts = new ArrayList<>();
        List<String> deletes = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.get(i);
            if (i % 7 == 0) {
                deletes.add(id);
                expected.put(id, "delete");
            } else if (i % 3 == 0) {
                upserts.add(row(id, i + 1_000_000L));
                expected.put(id, "update");
            } else if (i % 5 == 0) {
                upserts.add(row(id, (long) i));
            }
        }
        upserts.add(row("\uD834\uDD1Ex", null)); // the supplementary id: updated to nulls
        expected.put("\uD834\uDD1Ex", "update");
        upserts.removeIf(r -> r.get("id").equals("\uD834\uDD1Ex") && r.get("v") != null);
        for (int i = 0; i < 5_000; i++) {
            upserts.add(row("p" + i, (long) i));
            expected.put("p" + i, "insert");
        }
        TableSnapshot mid = tables.stageUpsert(before, upserts, "id", Map.of()).flatMap(tables::commitStaged)
                .flatMap(c -> tables.open(before.ref(), OptionalLong.of(c.version()))).block(WAIT);
        String predicate = dev.omnigraph.storage.SqlLiterals.inList("id", deletes);
        TableSnapshot after = tables.stageDelete(mid, predicate, Map.of()).flatMap(h -> tables.commitStaged(h.orElseThrow()))
                .flatMap(c -> tables.open(before.ref(), OptionalLong.of(c.version()))).block(WAIT);

        RowDeltas deltas = new RowDeltas(tables);
        List<RowChange> all = deltas.between(Optional.of(before), Optional.of(after), Optional.empty()).collectList().block(WAIT);
        Map<String, String> got = new LinkedHashMap<>();
        all.forEach(c -> got.put(c.id(), c.op().wireName()));
        assertThat(new ArrayList<>(got.keySet())).as("id order, each once").isEqualTo(new ArrayList<>(expected.keySet()));
        assertThat(got).isEqualTo(expected);
        RowChange update = all.stream().filter(c -> c.id().equals("n00003")).findFirst().orElseThrow();
        assertThat(update.before().orElseThrow().get("v")).isEqualTo(3L);
        assertThat(update.after().orElseThrow().get("v")).isEqualTo(1_000_003L);

        // Resuming after any id yields exactly the rest; batches are bounded.
        String middle = all.get(all.size() / 2).id();
        List<RowChange> rest = deltas.between(Optional.of(before), Optional.of(after), Optional.of(middle)).collectList().block(WAIT);
        assertThat(rest).extracting(RowChange::id).isEqualTo(all.subList(all.size() / 2 + 1, all.size()).stream().map(RowChange::id).toList());
        List<List<RowChange>> batches = deltas.batches(Optional.of(before), Optional.of(after), Optional.empty(), 1000)
                .collectList().block(WAIT);
        assertThat(batches).allSatisfy(b -> assertThat(b).hasSizeLessThanOrEqualTo(1000));
        assertThat(batches.stream().mapToInt(List::size).sum()).isEqualTo(all.size());
        // Taking a prefix cancels both scans (the storage's close check would report a leaked scan).
        assertThat(deltas.between(Optional.of(before), Optional.of(after), Optional.empty()).take(3).collectList().block(WAIT))
                .hasSize(3);

        // An absent side: everything is an insert (or a delete); equal pins: nothing.
        assertThat(deltas.between(Optional.empty(), Optional.of(before), Optional.empty()).count().block(WAIT))
                .isEqualTo(ids.size());
        assertThat(deltas.between(Optional.of(after), Optional.empty(), Optional.empty())
                .all(c -> c.op() == ChangeOp.DELETE).block(WAIT)).isTrue();
        assertThat(deltas.between(Optional.of(after), Optional.of(after), Optional.empty()).count().block(WAIT)).isZero();
    }

    @Test
    void aDiffReadsOnlyTheFragmentsTheTwoVersionsDoNotShare() {
        TableSnapshot empty = tables.create(dir.resolve("f").toString(), SCHEMA).block(WAIT);
        List<Map<String, Object>> big = new ArrayList<>();
        for (int i = 0; i < 6_000; i++) big.add(row(String.format("b%05d", i), (long) i));
        TableSnapshot base = commitAppend(commitAppend(empty, big), List.of(row("s1", 1L), row("s2", 2L)));
        // Change only the small fragment (an update and a delete) and append a new one.
        TableSnapshot after = tables.stageRowDelta(base, List.of(row("s1", 10L), row("s3", 3L)), List.of("s2"), "id", Map.of())
                .flatMap(h -> tables.commitStaged(h.orElseThrow()))
                .flatMap(c -> tables.open(base.ref(), OptionalLong.of(c.version()))).block(WAIT);
        dev.omnigraph.storage.StorageCallCounter counter = new dev.omnigraph.storage.StorageCallCounter();
        RowDeltas counted = new RowDeltas(new dev.omnigraph.storage.CountingTableStorage(tables, counter));

        Map<String, String> got = new TreeMap<>();
        counted.between(Optional.of(base), Optional.of(after), Optional.empty())
                .doOnNext(c -> got.put(c.id(), c.op().wireName())).blockLast(WAIT);

        assertThat(got).isEqualTo(Map.of("s1", "update", "s2", "delete", "s3", "insert"));
        // The 6,000-row fragment both versions share is never read: 2 rows before, 2 after.
        assertThat(counter.get(dev.omnigraph.storage.StorageCallCounter.Call.SCAN_ROWS)).isEqualTo(4L);
    }

    @Test
    void aOneRowUpdateOfALargeFragmentReadsOneRowPerSide() {
        TableSnapshot empty = tables.create(dir.resolve("one").toString(), SCHEMA).block(WAIT);
        List<Map<String, Object>> big = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) big.add(row(String.format("b%05d", i), (long) i));
        TableSnapshot base = commitAppend(empty, big);
        TableSnapshot updated = tables.stageUpsert(base, List.of(row("b12345", -1L)), "id", Map.of())
                .flatMap(tables::commitStaged).flatMap(c -> tables.open(base.ref(), OptionalLong.of(c.version()))).block(WAIT);
        TableSnapshot deleted = tables.stageDelete(updated, "id = 'b00007'", Map.of())
                .flatMap(h -> tables.commitStaged(h.orElseThrow()))
                .flatMap(c -> tables.open(base.ref(), OptionalLong.of(c.version()))).block(WAIT);
        dev.omnigraph.storage.StorageCallCounter counter = new dev.omnigraph.storage.StorageCallCounter();
        RowDeltas counted = new RowDeltas(new dev.omnigraph.storage.CountingTableStorage(tables, counter));

        List<RowChange> changes = counted.between(Optional.of(base), Optional.of(deleted), Optional.empty()).collectList().block(WAIT);

        assertThat(changes).extracting(c -> c.id() + " " + c.op().wireName()).containsExactly("b00007 delete", "b12345 update");
        assertThat(changes.get(1).before().orElseThrow().get("v")).isEqualTo(12_345L);
        // The old images are picked by row id (2 rows) and the new fragment read whole (1 row); the 20,000-row
        // fragment itself is never scanned.
        assertThat(counter.get(dev.omnigraph.storage.StorageCallCounter.Call.SCAN_ROWS)).isEqualTo(3L);
    }

    @Test
    void typedEqualityComparesBytesAndListsByContent() {
        Map<String, Object> a = new HashMap<>(Map.of("id", "x", "b", new byte[] {1, 2}, "l", List.of(1.0f, Float.NaN)));
        Map<String, Object> b = new HashMap<>(Map.of("id", "x", "b", new byte[] {1, 2}, "l", List.of(1.0f, Float.NaN)));
        assertThat(RowValues.rowsEqual(a, b)).isTrue();
        b.put("b", new byte[] {1, 3});
        assertThat(RowValues.rowsEqual(a, b)).isFalse();
        assertThat(RowValues.valuesEqual(0.0d, -0.0d)).isFalse();
        assertThat(RowValues.compareCodePoints("\uE000", "\uD834\uDD1E")).isNegative();
        assertThat("\uE000".compareTo("\uD834\uDD1E")).as("Java's own order differs").isPositive();
    }
}
