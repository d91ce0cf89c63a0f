package dev.omnigraph.bench;

import dev.omnigraph.engine.GraphSnapshot;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.QueryOutput;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.TableInfo;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.engine.write.WriteLimits;
import dev.omnigraph.storage.BlobRead;
import dev.omnigraph.storage.BlobWindow;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.root.GraphRoot;
import java.io.IOException;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.BlobFile;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * One 100 MB Blob property value, written by a mutation (Lance's blob encoding, format 2.1; the handle's per-commit
 * limit raised, since the default 32 MiB refuses it), then 4 KB read at a random offset through the engine's
 * {@code blob(…, BlobWindow)}, beside raw Lance on the same pinned version: open, {@code takeBlobs} of the row id
 * (looked up once, unmeasured) and {@code readRange} of the same 4 KB. The storage seam's {@code readBlob} (open, key
 * scan, take, range) sits between the two; the whole-blob read, engine and raw Lance, shows what a range saves.
 * Every range read is checked against the bytes written.
 */
final class BlobRange implements Scenario {
    static final int RANGE = 4096;
    static final String RAW_RANGE = "raw lance: open pinned version + takeBlobs(row id) + readRange 4 KB";
    static final String RAW_WHOLE = "raw lance: open pinned version + takeBlobs(row id) + read() whole blob";
    private static final String SCHEMA = """
            node File {
                name: String @key
                data: Blob?
            }
            """;
    private static final String QUERIES = """
            query add($n: String, $b: String) { insert File { name: $n, data: $b } }
            query idOf($n: String) { match { $f: File { name: $n } } return { $f.id } }
            """;

    @Override
    public String name() {
        return "blob-range";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        int size = ctx.options().pick(100 * 1024 * 1024, 1024 * 1024);
        int warmup = ctx.options().pick(20, 2);
        int reps = ctx.options().pick(200, 3);
        int wholeWarmup = ctx.options().pick(2, 1);
        int wholeReps = ctx.options().pick(10, 2);
        ScenarioReport report = new ScenarioReport(name(), String.format(Locale.ROOT, "A %,d-byte Blob property (Lance "
                + "blob encoding) read by range, %,d bytes at a random offset, and whole, through the engine; vs raw "
                + "Lance takeBlobs + readRange / read() on the same pinned version.", size, RANGE)).unit("ms per read");

        byte[] blob = new byte[size];
        new Random(28).nextBytes(blob);
        GraphRoot root = new GraphRoot.Local(ctx.workDir(name()).resolve("graph"));
        // The default per-commit limit (32 MiB of estimated Arrow bytes per table) refuses a 100 MB blob in one
        // insert; this handle's writes may stage up to twice the blob.
        Omnigraph graph = ctx.run(() -> Omnigraph.at(root).services(ctx.services())
                .writeLimits(new WriteLimits(WriteLimits.DEFAULT.maxEntitiesPerTable(), 2L * size + (1 << 20)))
                .init(SCHEMA));
        try {
            String payload = "base64:" + Base64.getEncoder().encodeToString(blob);
            long started = System.nanoTime();
            ctx.run(() -> graph.mutate("main", QUERIES, "add", Map.of("n", "big", "b", payload), WriteOptions.DEFAULT));
            long writeMs = (System.nanoTime() - started) / 1_000_000;
            String id = (String) ctx.run(() -> graph.query(ReadTarget.main(), QUERIES, "idOf", Map.of("n", "big"))
                    .flatMap((QueryOutput out) -> out.rows().next())).get(0);
            GraphSnapshot snapshot = ctx.run(() -> graph.snapshot(ReadTarget.main()));
            TableInfo table = snapshot.table("node:File").orElseThrow();
            TableRef ref = new TableRef(graph.root().resolve(table.path()).toString(), table.lanceBranch());
            TableSnapshot pinned = TableSnapshot.pinned(ref, table.version(), table.rowCount());
            TableStorage tables = ctx.services().tables();

            try (BufferAllocator allocator = new RootAllocator()) {
                long rowId = rowIdOf(allocator, ref, table.version(), id);
                Series raw = report.row(RAW_RANGE, null);
                Series seam = report.row("storage seam readBlob: open + key scan + takeBlobs + readRange 4 KB", RAW_RANGE);
                Series ours = report.row("omnigraph blob(File, id, data, BlobWindow 4 KB)", RAW_RANGE);
                Random offsets = new Random(42);
                for (int i = 0; i < warmup + reps; i++) {
                    boolean measured = i >= warmup;
                    long offset = offsets.nextLong(size - RANGE + 1);
                    byte[] expected = Arrays.copyOfRange(blob, (int) offset, (int) offset + RANGE);
                    BlobWindow window = BlobWindow.from(offset, OptionalLong.of(RANGE));
                    byte[] lance = measured
                            ? ctx.measure(raw, 1, () -> rawRange(allocator, ref, table.version(), rowId, offset))
                            : rawRange(allocator, ref, table.version(), rowId, offset);
                    BlobRead viaSeam = ctx.runOrMeasure(measured ? seam : null,
                            () -> tables.readBlob(pinned, "id", id, "data", window));
                    BlobRead.Slice slice = ctx.runOrMeasure(measured ? ours : null,
                            () -> graph.blob(ReadTarget.main(), "File", id, "data", window));
                    if (!Arrays.equals(lance, expected) || !(viaSeam instanceof BlobRead.Slice s && Arrays.equals(s.bytes(), expected))
                            || !Arrays.equals(slice.bytes(), expected) || slice.size() != size) {
                        throw new IllegalStateException("the 4 KB at " + offset + " read back wrong");
                    }
                }

                Series rawWhole = report.row(RAW_WHOLE, null);
                Series oursWhole = report.row("omnigraph blob(File, id, data) whole", RAW_WHOLE);
                for (int i = 0; i < wholeWarmup + wholeReps; i++) {
                    boolean measured = i >= wholeWarmup;
                    byte[] lance = measured ? ctx.measure(rawWhole, 1, () -> rawWhole(allocator, ref, table.version(), rowId))
                            : rawWhole(allocator, ref, table.version(), rowId);
                    byte[] all = ctx.runOrMeasure(measured ? oursWhole : null,
                            () -> graph.blob(ReadTarget.main(), "File", id, "data"));
                    if (lance.length != size || !Arrays.equals(all, blob)) {
                        throw new IllegalStateException("the whole blob read back wrong");
                    }
                }
                report.note(String.format(Locale.ROOT, "one %,d-byte blob written by one `insert` mutation (base64 "
                        + "parameter) in %,d ms, the handle's per-commit limit raised from %,d to %,d estimated Arrow "
                        + "bytes (the default refuses it); table version %d, %d row; range offsets uniform in "
                        + "[0, size - %d], seeded", size, writeMs, WriteLimits.DEFAULT.maxArrowBytesPerTable(),
                        graph.limits().maxArrowBytesPerTable(), table.version(), table.rowCount(), RANGE));
                report.note(String.format(Locale.ROOT, "omnigraph 4 KB range ÷ omnigraph whole blob: %.4f× (medians)",
                        ours.median() / oursWhole.median()));
            }
        } finally {
            graph.close();
        }
        return report;
    }

    /** The blob's row id, looked up once outside the measured reads (raw Lance hands out blobs by row id). */
    private static long rowIdOf(BufferAllocator allocator, TableRef ref, long version, String id) throws Exception {
        ScanOptions options = new ScanOptions.Builder().filter(dev.omnigraph.storage.SqlLiterals.eq("id", id))
                .columns(List.of("id")).withRowId(true).build();
        try (Dataset dataset = open(allocator, ref, version); LanceScanner scanner = dataset.newScan(options);
             ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                if (reader.getVectorSchemaRoot().getRowCount() > 0) {
                    return ((UInt8Vector) reader.getVectorSchemaRoot().getVector("_rowid")).get(0);
                }
            }
        }
        throw new IllegalStateException("no row " + id + " in " + ref);
    }

    private static byte[] rawRange(BufferAllocator allocator, TableRef ref, long version, long rowId, long offset)
            throws IOException {
        try (Dataset dataset = open(allocator, ref, version)) {
            List<BlobFile> files = dataset.takeBlobs(List.of(rowId), "data");
            try (BlobFile file = files.get(0)) {
                return file.readRange(offset, RANGE);
            }
        }
    }

    private static byte[] rawWhole(BufferAllocator allocator, TableRef ref, long version, long rowId) throws IOException {
        try (Dataset dataset = open(allocator, ref, version)) {
            List<BlobFile> files = dataset.takeBlobs(List.of(rowId), "data");
            try (BlobFile file = files.get(0)) {
                return file.read();
            }
        }
    }

    private static Dataset open(BufferAllocator allocator, TableRef ref, long version) {
        if (ref.branch().isPresent()) throw new IllegalStateException("the blob table is on a Lance branch: " + ref);
        return Dataset.open(allocator, ref.path(), new ReadOptions.Builder().setVersion(version).build());
    }
}
