package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.StorageCallCounter.Call;
import dev.omnigraph.storage.testing.StorageFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * {@link TableStorage#readBlob} and scans of blob-encoded columns on real datasets: a range of a 10 MB blob reads
 * only that range (counted by the counting seam and, on Linux, by the process's own read bytes), a plain
 * {@code LargeBinary} column of an earlier build still reads (whole, then sliced), scans hand out bytes rather than
 * Lance's descriptors, and a table of format 2.0 keeps plain columns.
 */
class BlobRangeTest extends LanceStorageTestBase {
    static final int BIG = 10 * 1024 * 1024;

    static Schema schema(boolean encoded) {
        Map<String, String> metadata = encoded ? BlobEncoding.marked(Map.of()) : Map.of();
        return new Schema(List.of(
                new Field("id", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
                new Field("doc", new FieldType(true, ArrowType.LargeBinary.INSTANCE, null, metadata), null),
                new Field("n", FieldType.nullable(new ArrowType.Int(32, true)), null)));
    }

    static byte[] pattern(int size, int seed) {
        byte[] out = new byte[size];
        for (int i = 0; i < size; i++) out[i] = (byte) ((i * 31 + seed) ^ (i >>> 9));
        return out;
    }

    static Map<String, Object> row(String id, byte[] doc, int n) {
        Map<String, Object> row = new HashMap<>();
        row.put("id", id);
        row.put("doc", doc);
        row.put("n", n);
        return row;
    }

    private TableSnapshot filled(TableStorage tables, String name, boolean encoded) {
        TableSnapshot empty = tables.create(dir.resolve(name).toString(), schema(encoded)).block();
        List<Map<String, Object>> rows = List.of(row("big", pattern(BIG, 7), 1), row("small", pattern(1000, 3), 2),
                row("empty", new byte[0], 3), row("none", null, 4));
        return tables.commitStaged(tables.stageAppend(empty, rows, Map.of()).block()).block().snapshot().orElseThrow();
    }

    private static Field doc(TableSnapshot snapshot) {
        return snapshot.schema().findField("doc");
    }

    @Test
    void aRangeOfATenMegabyteBlobReadsOnlyThatRange() throws IOException {
        StorageCallCounter counter = new StorageCallCounter();
        CountingTableStorage counted = new CountingTableStorage(storage, counter);
        TableSnapshot at = filled(counted, "encoded", true);
        assertThat(BlobEncoding.isEncoded(doc(at))).as("new tables store blobs with Lance's blob encoding").isTrue();
        byte[] big = pattern(BIG, 7);

        BlobRead.Slice first = (BlobRead.Slice) counted.readBlob(at, "id", "big", "doc",
                BlobWindow.from(5_000_000, OptionalLong.of(4096))).block(); // warms classes and caches up
        assertThat(first.size()).isEqualTo(BIG);
        assertThat(first.offset()).isEqualTo(5_000_000);
        assertThat(first.bytes()).isEqualTo(Arrays.copyOfRange(big, 5_000_000, 5_004_096));

        long bytesBefore = counter.get(Call.BLOB_BYTES);
        OptionalLong readBefore = processReadBytes();
        BlobRead.Slice tail = (BlobRead.Slice) counted.readBlob(at, "id", "big", "doc",
                BlobWindow.from(BIG - 4096, OptionalLong.of(1_000_000))).block(); // cut at the end
        OptionalLong readAfter = processReadBytes();
        assertThat(tail.bytes()).isEqualTo(Arrays.copyOfRange(big, BIG - 4096, BIG));
        assertThat(counter.get(Call.BLOB_BYTES) - bytesBefore).isEqualTo(4096);
        if (readBefore.isPresent() && readAfter.isPresent()) {
            // Everything this JVM read from files meanwhile (Lance's reads are pread calls): far below the blob.
            assertThat(readAfter.getAsLong() - readBefore.getAsLong()).isLessThan(BIG / 8);
        }
        assertThat(counter.get(Call.BLOB)).isEqualTo(2);
    }

    @Test
    void nullEmptyMissingAndPastTheEnd() {
        StorageCallCounter counter = new StorageCallCounter();
        CountingTableStorage counted = new CountingTableStorage(storage, counter);
        TableSnapshot at = filled(counted, "encoded", true);
        assertThat(counted.readBlob(at, "id", "none", "doc", BlobWindow.whole()).block()).isInstanceOf(BlobRead.NullBlob.class);
        assertThat(counted.readBlob(at, "id", "ghost", "doc", BlobWindow.whole()).block()).isInstanceOf(BlobRead.NoRow.class);
        BlobRead.Slice empty = (BlobRead.Slice) counted.readBlob(at, "id", "empty", "doc", BlobWindow.whole()).block();
        assertThat(empty.size()).isZero();
        assertThat(empty.bytes()).isEmpty();
        BlobRead.Slice small = (BlobRead.Slice) counted.readBlob(at, "id", "small", "doc", BlobWindow.whole()).block();
        assertThat(small.bytes()).isEqualTo(pattern(1000, 3));

        long bytesBefore = counter.get(Call.BLOB_BYTES);
        assertThat(counted.readBlob(at, "id", "big", "doc", BlobWindow.from(BIG, OptionalLong.empty())).block())
                .isEqualTo(new BlobRead.Unsatisfiable(BIG));
        assertThat(counted.readBlob(at, "id", "small", "doc", BlobWindow.from(5000, OptionalLong.of(1))).block())
                .isEqualTo(new BlobRead.Unsatisfiable(1000));
        assertThat(counter.get(Call.BLOB_BYTES)).as("nothing read for a refused range").isEqualTo(bytesBefore);
    }

    @Test
    void aPlainColumnOfAnEarlierBuildStillReadsWholeThenSliced() {
        StorageCallCounter counter = new StorageCallCounter();
        CountingTableStorage counted = new CountingTableStorage(storage, counter);
        TableSnapshot at = filled(counted, "plain", false);
        assertThat(BlobEncoding.isEncoded(doc(at))).isFalse();
        BlobRead.Slice slice = (BlobRead.Slice) counted.readBlob(at, "id", "big", "doc",
                BlobWindow.from(123, OptionalLong.of(10))).block();
        assertThat(slice.bytes()).isEqualTo(Arrays.copyOfRange(pattern(BIG, 7), 123, 133));
        assertThat(slice.size()).isEqualTo(BIG);
        // The counting seam sees the whole value read: what the encoded test above would see if ranges were not used.
        assertThat(counter.get(Call.BLOB_BYTES)).isEqualTo(BIG);
        assertThat(counted.readBlob(at, "id", "none", "doc", BlobWindow.whole()).block()).isInstanceOf(BlobRead.NullBlob.class);
        assertThat(counted.readBlob(at, "id", "big", "doc", BlobWindow.from(BIG + 1, OptionalLong.empty())).block())
                .isEqualTo(new BlobRead.Unsatisfiable(BIG));

        // Writes keep the plain encoding: staged in the dataset's own schema.
        TableSnapshot upserted = storage.commitStaged(storage.stageUpsert(at, List.of(row("small", pattern(50, 1), 9)), "id",
                Map.of()).block()).block().snapshot().orElseThrow();
        assertThat(BlobEncoding.isEncoded(doc(upserted))).isFalse();
        assertThat(((BlobRead.Slice) storage.readBlob(upserted, "id", "small", "doc", BlobWindow.whole()).block()).bytes())
                .isEqualTo(pattern(50, 1));
    }

    @Test
    void scansHandOutBlobBytesNotDescriptors() {
        TableSnapshot at = filled(storage, "encoded", true);
        RowBatch batch = storage.scan(at, ScanRequest.all().includingRowAddress()).blockLast();
        assertThat(batch.columns()).containsExactly("id", "doc", "n", "_rowaddr");
        Map<String, Map<String, Object>> byId = new HashMap<>();
        storage.scan(at, ScanRequest.all().withBatchSize(3)).flatMapIterable(RowBatch::rows).toStream()
                .forEach(row -> byId.put((String) row.get("id"), row));
        assertThat(byId.get("big").get("doc")).isEqualTo(pattern(BIG, 7));
        assertThat(byId.get("small").get("doc")).isEqualTo(pattern(1000, 3));
        assertThat(byId.get("empty").get("doc")).isEqualTo(new byte[0]);
        assertThat(byId.get("none")).containsEntry("doc", null).containsEntry("n", 4);
        assertThat(byId.get("small").keySet()).containsExactly("id", "doc", "n");

        List<Map<String, Object>> filtered = storage.scan(at, ScanRequest.where("n >= 2").withColumns(List.of("doc", "id"))
                .orderedBy("id")).flatMapIterable(RowBatch::rows).collectList().block();
        assertThat(filtered).extracting(row -> row.get("id")).containsExactly("empty", "none", "small");
        assertThat(filtered.get(2).get("doc")).isEqualTo(pattern(1000, 3));

        // A full-row rewrite (what a mutation of another column does) keeps the blob bytes.
        Map<String, Object> changed = new HashMap<>(byId.get("small"));
        changed.put("n", 20);
        TableSnapshot upserted = storage.commitStaged(storage.stageUpsert(at, List.of(changed), "id", Map.of()).block())
                .block().snapshot().orElseThrow();
        assertThat(BlobEncoding.isEncoded(doc(upserted))).isTrue();
        BlobRead.Slice kept = (BlobRead.Slice) storage.readBlob(upserted, "id", "small", "doc",
                BlobWindow.from(990, OptionalLong.empty())).block();
        assertThat(kept.bytes()).isEqualTo(Arrays.copyOfRange(pattern(1000, 3), 990, 1000));
    }

    @Test
    void overwriteWithANewSchemaEncodesOnFormat21AndKeepsFormat20Plain() {
        TableSnapshot plain = filled(storage, "plain", false);
        List<Map<String, Object>> rows = storage.scan(plain, ScanRequest.all()).flatMapIterable(RowBatch::rows)
                .collectList().block();
        TableSnapshot rewritten = storage.commitStaged(storage.stageOverwrite(plain, rows, schema(true), Map.of()).block())
                .block().snapshot().orElseThrow();
        assertThat(BlobEncoding.isEncoded(doc(rewritten))).isTrue();
        assertThat(((BlobRead.Slice) storage.readBlob(rewritten, "id", "big", "doc",
                BlobWindow.from(BIG - 2, OptionalLong.empty())).block()).bytes())
                .isEqualTo(Arrays.copyOfRange(pattern(BIG, 7), BIG - 2, BIG));

        try (LanceTableStorage old = new LanceTableStorage(StorageFixture.scheduler(), "2.0")) {
            TableSnapshot v20 = filled(old, "v20", true);
            assertThat(BlobEncoding.isEncoded(doc(v20))).as("format 2.0 keeps the plain column").isFalse();
            TableSnapshot again = old.commitStaged(old.stageOverwrite(v20, List.of(row("a", pattern(10, 1), 1)),
                    schema(true), Map.of()).block()).block().snapshot().orElseThrow();
            assertThat(BlobEncoding.isEncoded(doc(again))).isFalse();
            assertThat(((BlobRead.Slice) old.readBlob(again, "id", "a", "doc", BlobWindow.from(8, OptionalLong.empty()))
                    .block()).bytes()).isEqualTo(Arrays.copyOfRange(pattern(10, 1), 8, 10));
        }
    }

    @Test
    void aBranchReadsTheBlobsItInheritedAndItsOwn() {
        TableSnapshot at = filled(storage, "encoded", true);
        storage.createBranch(at.ref(), at.version(), "side").block();
        TableRef side = new TableRef(at.ref().path(), Optional.of("side"));
        TableSnapshot forked = storage.open(side, OptionalLong.empty()).block();
        // Lance 7 looks for an inherited fragment's blob file under the branch's own directory: read from the parent.
        assertThat(((BlobRead.Slice) storage.readBlob(forked, "id", "big", "doc", BlobWindow.from(9, OptionalLong.of(3)))
                .block()).bytes()).isEqualTo(Arrays.copyOfRange(pattern(BIG, 7), 9, 12));
        TableSnapshot written = storage.commitStaged(storage.stageAppend(forked, List.of(row("own", pattern(64, 5), 5)),
                Map.of()).block()).block().snapshot().orElseThrow();
        storage.createBranch(side, written.version(), "deeper").block();
        TableSnapshot deeper = storage.open(new TableRef(at.ref().path(), Optional.of("deeper")), OptionalLong.empty()).block();
        Map<String, Object> docs = new HashMap<>();
        storage.scan(deeper, ScanRequest.all().withColumns(List.of("id", "doc"))).flatMapIterable(RowBatch::rows)
                .toStream().forEach(row -> docs.put((String) row.get("id"), row.get("doc")));
        assertThat(docs.get("big")).isEqualTo(pattern(BIG, 7));
        assertThat(docs.get("own")).isEqualTo(pattern(64, 5));
        assertThat(docs.get("none")).isNull();
        assertThat(((BlobRead.Slice) storage.readBlob(deeper, "id", "own", "doc", BlobWindow.whole()).block()).bytes())
                .isEqualTo(pattern(64, 5));
    }

    /** Bytes this process has read through read(2)/pread(2) so far ({@code rchar}); empty where /proc is missing. */
    static OptionalLong processReadBytes() throws IOException {
        Path io = Path.of("/proc/self/io");
        if (!Files.isReadable(io)) return OptionalLong.empty();
        for (String line : Files.readAllLines(io)) {
            if (line.startsWith("rchar:")) return OptionalLong.of(Long.parseLong(line.substring(6).trim()));
        }
        return OptionalLong.empty();
    }


    @Test
    void aDiffPicksTheOldImageOfAnUpdatedBlobRowWithItsBytes() {
        TableSnapshot at = filled(storage, "diffed", true);
        TableSnapshot upserted = storage.commitStaged(storage.stageUpsert(at, List.of(row("small", pattern(50, 1), 9)), "id",
                Map.of()).block()).block().snapshot().orElseThrow();

        FragmentDiff diff = storage.fragmentDiff(at, upserted, 10).block();
        assertThat(diff.beforeOnly()).as("the shared fragment only lost a row: nothing read whole").isEmpty();
        assertThat(diff.beforeRows().size()).isEqualTo(1);
        List<Map<String, Object>> old = storage.rowsAt(at, diff.beforeRows()).flatMapIterable(RowBatch::rows)
                .collectList().block();

        // A blob-encoded table goes through the scan path (a _rowid filter), which fetches the bytes as usual.
        assertThat(old).hasSize(1);
        assertThat(old.get(0)).containsEntry("id", "small").containsEntry("n", 2);
        assertThat((byte[]) old.get(0).get("doc")).isEqualTo(pattern(1000, 3));
        // With no budget to pick by row id, the fragment is read whole on both sides instead.
        FragmentDiff whole = storage.fragmentDiff(at, upserted, 0).block();
        assertThat(whole.beforeRows().isEmpty()).isTrue();
        assertThat(whole.beforeOnly()).isNotEmpty();
    }
}
