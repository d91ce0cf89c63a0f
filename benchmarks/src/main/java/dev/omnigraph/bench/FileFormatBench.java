package dev.omnigraph.bench;

import dev.omnigraph.storage.LanceTableStorage;
import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.SqlLiterals;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.TableStorage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Mono;

/**
 * Which Lance data-file format new tables should use: the same work on a table created in format 2.0 (what the
 * 0.39 builds wrote) and in 2.1 (Lance 7's default), interleaved per repetition. One-row staged append + commit
 * (the write every single-row mutation makes), a bulk append of {@link #ROWS} rows in chunks of 8,192 (disk per
 * row afterwards), a full scan and a filtered point scan. Ratios are 2.1 over 2.0.
 */
final class FileFormatBench implements Scenario {
    static final int CHUNK = 8_192;
    static final int ROWS = 100_000;
    private static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Utf8()), null),
            Field.nullable("name", new ArrowType.Utf8()),
            Field.nullable("age", new ArrowType.Int(32, true)),
            Field.nullable("score", new ArrowType.FloatingPoint(org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE)),
            Field.nullable("text", new ArrowType.Utf8())));
    private static final List<String> WORDS = List.of("graph", "lance", "branch", "merge", "commit", "index", "query",
            "reactive", "storage", "version", "fragment", "manifest", "sidecar", "recovery", "publish", "token");

    @Override
    public String name() {
        return "file-format";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        int rows = ctx.options().pick(ROWS, 2_000);
        int warmup = ctx.options().pick(20, 2);
        int reps = ctx.options().pick(200, 3);
        int scans = ctx.options().pick(20, 2);
        ScenarioReport report = new ScenarioReport(name(), "The same table work in Lance file format 2.0 and 2.1 "
                + "(new tables' choice), interleaved: one-row append + commit, bulk append of " + rows
                + " rows in chunks of 8,192, full scan, point scan.").unit("ms per operation; disk in bytes per row");
        Path dir = ctx.workDir(name());
        Map<String, LanceTableStorage> storages = new LinkedHashMap<>();
        for (String format : List.of("2.0", "2.1")) {
            storages.put(format, new LanceTableStorage(ctx.services().scheduler(), format));
        }
        try {
            Map<String, Series> single = new LinkedHashMap<>();
            Map<String, Series> bulk = new LinkedHashMap<>();
            Map<String, Series> full = new LinkedHashMap<>();
            Map<String, Series> point = new LinkedHashMap<>();
            for (String format : storages.keySet()) {
                String base = "2.0".equals(format) ? null : "format 2.0: ";
                single.put(format, report.row("format " + format + ": one-row append + commit", base == null ? null : base + "one-row append + commit"));
                bulk.put(format, report.row("format " + format + ": bulk append, " + rows + " rows", base == null ? null : base + "bulk append, " + rows + " rows"));
                full.put(format, report.row("format " + format + ": full scan", base == null ? null : base + "full scan"));
                point.put(format, report.row("format " + format + ": point scan (id = …)", base == null ? null : base + "point scan (id = …)"));
            }
            Map<String, TableRef> small = new LinkedHashMap<>();
            Map<String, TableRef> large = new LinkedHashMap<>();
            for (Map.Entry<String, LanceTableStorage> entry : storages.entrySet()) {
                small.put(entry.getKey(), create(ctx, entry.getValue(), dir.resolve("small-" + entry.getKey())));
                large.put(entry.getKey(), create(ctx, entry.getValue(), dir.resolve("large-" + entry.getKey())));
            }
            for (int i = 0; i < warmup + reps; i++) {
                boolean measured = i >= warmup;
                for (String format : storages.keySet()) {
                    List<Map<String, Object>> row = List.of(row(i));
                    TableStorage tables = storages.get(format);
                    TableRef ref = small.get(format);
                    ctx.runOrMeasure(measured ? single.get(format) : null, () -> Workload.rawAppend(tables, ref, row));
                }
            }
            List<List<Map<String, Object>>> chunks = new ArrayList<>();
            for (int from = 0; from < rows; from += CHUNK) {
                List<Map<String, Object>> chunk = new ArrayList<>();
                for (int i = from; i < Math.min(rows, from + CHUNK); i++) {
                    chunk.add(row(i));
                }
                chunks.add(chunk);
            }
            for (String format : storages.keySet()) {
                TableStorage tables = storages.get(format);
                TableRef ref = large.get(format);
                ctx.measure(bulk.get(format), chunks.size(), () -> {
                    for (List<Map<String, Object>> chunk : chunks) {
                        Workload.rawAppend(tables, ref, chunk).block(BenchContext.OP_TIMEOUT);
                    }
                    return null;
                });
                // Only the data files: what the format decides (manifests and transactions are the same).
                long bytes = BenchContext.bytesUnder(Path.of(ref.path()).resolve("data"));
                bulk.get(format).note(String.format("disk: %,d bytes of data files, %.1f bytes per row", bytes,
                        (double) bytes / rows));
            }
            Random keys = new Random(7);
            for (int i = 0; i < 2 + scans; i++) {
                boolean measured = i >= 2;
                String id = id(keys.nextInt(rows));
                for (String format : storages.keySet()) {
                    TableStorage tables = storages.get(format);
                    TableSnapshot at = ctx.run(() -> tables.open(large.get(format), OptionalLong.empty()));
                    long all = ctx.runOrMeasure(measured ? full.get(format) : null, () -> count(tables, at, ScanRequest.all()));
                    long one = ctx.runOrMeasure(measured ? point.get(format) : null,
                            () -> count(tables, at, ScanRequest.where(SqlLiterals.eq("id", id))));
                    if (all != rows || one != 1) {
                        throw new IllegalStateException("format " + format + ": scanned " + all + " rows, found " + one);
                    }
                }
            }
            report.note("one-row appends: " + reps + " measured after " + warmup + " warm-up, on a table growing by one "
                    + "fragment each; scans: " + scans + " measured over every column of the bulk table");
            return report;
        } finally {
            storages.values().forEach(LanceTableStorage::close);
        }
    }

    private static TableRef create(BenchContext ctx, TableStorage tables, Path path) {
        ctx.run(() -> tables.create(path.toString(), SCHEMA));
        return TableRef.main(path.toString());
    }

    private static Mono<Long> count(TableStorage tables, TableSnapshot at, ScanRequest request) {
        return tables.scan(at, request).map(batch -> (long) batch.rows().size()).reduce(0L, Long::sum);
    }

    private static String id(int i) {
        return String.format("row-%08d", i);
    }

    private static Map<String, Object> row(int i) {
        Random random = new Random(i);
        StringBuilder text = new StringBuilder();
        for (int w = 0, n = 6 + random.nextInt(10); w < n; w++) {
            text.append(w == 0 ? "" : " ").append(WORDS.get(random.nextInt(WORDS.size())));
        }
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id(i));
        row.put("name", "person " + (i % 5_000));
        row.put("age", 18 + random.nextInt(80));
        row.put("score", random.nextDouble());
        row.put("text", text.toString());
        return row;
    }
}
