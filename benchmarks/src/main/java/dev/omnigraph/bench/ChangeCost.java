package dev.omnigraph.bench;

import dev.omnigraph.engine.BranchOperations;
import dev.omnigraph.engine.ChangeOperations;
import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.MaintenanceOperations;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.engine.diff.CommitChanges;
import dev.omnigraph.engine.diff.FeedPage;
import dev.omnigraph.engine.diff.FeedStart;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.merge.MergeOutcome;
import dev.omnigraph.engine.merge.MergeResult;
import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.SqlLiterals;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.root.GraphRoot;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;

/**
 * What reading a change back costs as the tables grow (issue 29): {@code commit changes} and a feed poll of a
 * one-row update on N persons; a branch merge of a 1-row and a 50-row delta into a main of 8 types × N rows (a
 * three-way merge: main changed one unrelated row meanwhile); and a feed that pages through every change of N
 * updated rows. Baselines in the same run: raw Lance reading the changed row by a filtered scan (for the one-row
 * reads), the same rows as staged upserts on raw Lance tables (for merges), and a query reading every row once
 * (for the full diff).
 */
final class ChangeCost implements Scenario {
    private static final int TYPES = 8;
    private static final String SET_AGE = "query setAge($name: String, $age: I32) { update Person set { age: $age } where name = $name }";

    @Override
    public String name() {
        return "change-cost";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        ScenarioReport report = new ScenarioReport(name(), "Reading a change back: commit changes and a feed poll of a "
                + "1-row update on N rows; merges of small deltas into 8 types × N rows; a feed over N changed rows.")
                .unit("ms per operation");
        for (int n : List.of(ctx.options().pick(100_000, 5_000), ctx.options().pick(1_000_000, 20_000))) {
            oneRowReads(ctx, report, n);
        }
        merges(ctx, report, ctx.options().pick(100_000, 5_000));
        for (int n : List.of(ctx.options().pick(50_000, 5_000), ctx.options().pick(100_000, 10_000))) {
            fullDiff(ctx, report, n);
        }
        report.note("a diff reads what the two versions do not share: fragments by metadata, old row images picked by "
                + "row id, new fragments whole; see docs/architecture-reads.md, change reader");
        return report;
    }

    private void oneRowReads(BenchContext ctx, ScenarioReport report, int n) throws IOException {
        Path dir = ctx.workDir(name() + "-reads-" + n);
        Series raw = report.row(String.format(Locale.ROOT, "N=%,d: raw lance: filtered read of the changed row", n), null);
        Series changes = report.row(String.format(Locale.ROOT, "N=%,d: commit changes of a 1-row update", n), raw.name());
        Series poll = report.row(String.format(Locale.ROOT, "N=%,d: feed poll of a 1-row update", n), raw.name());
        Omnigraph graph = Workload.seeded(ctx, new GraphRoot.Local(dir.resolve("graph")), Workload.SCHEMA, dir, "p", n,
                Workload.LOAD_CHUNK, Workload::personLine);
        // Few, large fragments: the case a whole-table diff hurts.
        ctx.run(() -> graph.maintenance().optimize(MaintenanceOperations.Target.main()));
        TableStorage tables = ctx.services().tables();
        Schema schema = Workload.schemaOf(graph, "node:Person");
        TableRef rawPersons = Workload.rawTable(ctx, dir.resolve("raw"), schema);
        for (int[] c : Workload.chunks(n, 100_000)) {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (int i = c[0]; i < c[1]; i++) rows.add(Workload.personRow(schema, Workload.personName(i), i % 100));
            ctx.run(() -> Workload.rawAppend(tables, rawPersons, rows));
        }
        int reps = ctx.options().pick(9, 3);
        for (int rep = -1; rep < reps; rep++) {
            boolean warm = rep < 0;
            String name = Workload.personName((int) ((rep + 2) * 7_919L % n));
            int age = 201 + rep;
            String before = ctx.run(() -> graph.commits("main").next()).id();
            String commit = ctx.run(() -> graph.mutate("main", SET_AGE, "setAge", Map.of("name", name, "age", age),
                    WriteOptions.DEFAULT)).commit().orElseThrow().id();
            CommitChanges page = ctx.runOrMeasure(warm ? null : changes,
                    () -> graph.changes().commit(ChangeOperations.CommitPage.of(commit)));
            FeedPage polled = ctx.runOrMeasure(warm ? null : poll,
                    () -> graph.changes().poll(ChangeOperations.Poll.of("main", new FeedStart.After(before))));
            List<RowBatch> read = ctx.runOrMeasure(warm ? null : raw, () -> tables.open(rawPersons, OptionalLong.empty())
                    .flatMapMany(s -> tables.scan(s, ScanRequest.where(SqlLiterals.eq("id", name)))).collectList());
            if (page.changes().size() != 1 || polled.blocks().stream().mapToLong(b -> b.changes().size()).sum() != 1
                    || read.stream().mapToInt(RowBatch::size).sum() != 1) {
                throw new IllegalStateException("a 1-row update read back as " + page + " / " + polled);
            }
        }
        ratio(changes, raw);
        ratio(poll, raw);
        graph.close();
        BenchContext.deleteTree(dir);
    }

    private void merges(BenchContext ctx, ScenarioReport report, int n) throws IOException {
        Path dir = ctx.workDir(name() + "-merge");
        StringBuilder schemaText = new StringBuilder();
        for (int t = 0; t < TYPES; t++) schemaText.append("node T").append(t).append(" {\n    name: String @key\n    age: I32?\n}\n");
        Omnigraph graph = ctx.run(() -> Omnigraph.at(new GraphRoot.Local(dir.resolve("graph"))).services(ctx.services())
                .init(schemaText.toString()));
        TableStorage tables = ctx.services().tables();
        List<TableRef> raw = new ArrayList<>();
        for (int t = 0; t < TYPES; t++) {
            int type = t;
            for (int[] c : Workload.chunks(n, Workload.LOAD_CHUNK)) {
                ctx.run(() -> graph.load("main", LoadMode.APPEND, lines(type, c[0], c[1], 0), LoadOptions.DEFAULT));
            }
            Schema schema = Workload.schemaOf(graph, "node:T" + t);
            TableRef ref = Workload.rawTable(ctx, dir.resolve("raw-" + t), schema);
            List<Map<String, Object>> rows = new ArrayList<>();
            for (int i = 0; i < n; i++) rows.add(Workload.personRow(schema, "t" + t + "-" + i, 0));
            ctx.run(() -> Workload.rawAppend(tables, ref, rows));
            raw.add(ref);
        }
        ctx.run(() -> graph.maintenance().optimize(MaintenanceOperations.Target.main()));
        int reps = ctx.options().pick(7, 2);
        for (int delta : List.of(1, 50)) {
            Series rawUpserts = report.row(String.format(Locale.ROOT,
                    "8 types × %,d: raw lance: the %d upserted rows, one staged upsert per table", n, delta), null);
            Series merge = report.row(String.format(Locale.ROOT,
                    "8 types × %,d: omnigraph branch merge of a %d-row delta (three-way)", n, delta), rawUpserts.name());
            for (int rep = -1; rep < reps; rep++) {
                boolean warm = rep < 0;
                String branch = "d" + delta + "r" + (rep + 1);
                int age = 1_000 + delta * 100 + rep + 1;
                ctx.run(() -> graph.branches().create(branch));
                StringBuilder ndjson = new StringBuilder();
                List<List<Map<String, Object>>> perType = new ArrayList<>();
                for (int t = 0; t < TYPES; t++) perType.add(new ArrayList<>());
                for (int k = 0; k < delta; k++) {
                    int type = k % TYPES;
                    int row = (int) ((k * 7_919L + rep * 31L + 97) % n);
                    ndjson.append(line(type, row, age)).append('\n');
                    perType.get(type).add(Workload.personRow(Workload.schemaOf(graph, "node:T" + type), "t" + type + "-" + row, age));
                }
                byte[] bytes = ndjson.toString().getBytes(StandardCharsets.UTF_8);
                ctx.run(() -> graph.load(branch, LoadMode.MERGE, Flux.just(ByteBuffer.wrap(bytes)), LoadOptions.DEFAULT));
                // Main moves on meanwhile (a row of the last type no delta touches), so the merge is three-way.
                byte[] unrelated = (line(TYPES - 1, n - 1 - rep - 1, age) + "\n").getBytes(StandardCharsets.UTF_8);
                ctx.run(() -> graph.load("main", LoadMode.MERGE, Flux.just(ByteBuffer.wrap(unrelated)), LoadOptions.DEFAULT));
                MergeResult result = ctx.runOrMeasure(warm ? null : merge,
                        () -> graph.branches().merge(BranchOperations.Merge.of(branch, "main")));
                if (result.outcome() != MergeOutcome.MERGED || result.affectedNodes() != delta) {
                    throw new IllegalStateException("a " + delta + "-row merge gave " + result);
                }
                if (!warm) {
                    ctx.measure(rawUpserts, 1, () -> {
                        for (int t = 0; t < TYPES; t++) {
                            if (!perType.get(t).isEmpty()) Workload.rawUpsert(tables, raw.get(t), perType.get(t)).block();
                        }
                        return null;
                    });
                }
            }
            ratio(merge, rawUpserts);
        }
        graph.close();
        BenchContext.deleteTree(dir);
    }

    private void fullDiff(BenchContext ctx, ScenarioReport report, int n) throws IOException {
        Path dir = ctx.workDir(name() + "-full-" + n);
        Series scan = report.row(String.format(Locale.ROOT, "N=%,d changed: omnigraph query reading every row once", n), null);
        Series feed = report.row(String.format(Locale.ROOT, "N=%,d changed: feed pages over every change", n), scan.name());
        Omnigraph graph = Workload.seeded(ctx, new GraphRoot.Local(dir.resolve("graph")), Workload.SCHEMA, dir, "p", n,
                Workload.LOAD_CHUNK, Workload::personLine);
        String before = ctx.run(() -> graph.commits("main").next()).id();
        for (int[] c : Workload.chunks(n, Workload.LOAD_CHUNK)) { // every row updated, one commit per chunk
            StringBuilder ndjson = new StringBuilder();
            for (int i = c[0]; i < c[1]; i++) {
                ndjson.append("{\"type\":\"Person\",\"data\":{\"name\":\"").append(Workload.personName(i))
                        .append("\",\"age\":").append(i % 100 + 1).append("}}\n");
            }
            byte[] bytes = ndjson.toString().getBytes(StandardCharsets.UTF_8);
            ctx.run(() -> graph.load("main", LoadMode.MERGE, Flux.just(ByteBuffer.wrap(bytes)), LoadOptions.DEFAULT));
        }
        int reps = ctx.options().pick(3, 1);
        for (int rep = 0; rep < reps; rep++) {
            long seen = ctx.measure(feed, 1, () -> {
                long count = 0;
                FeedStart start = new FeedStart.After(before);
                while (true) {
                    FeedPage page = graph.changes().poll(ChangeOperations.Poll.of("main", start).limit(8_192)).block();
                    count += page.blocks().stream().mapToLong(b -> b.changes().size()).sum();
                    if (page.nextPageToken().isEmpty()) return count;
                    start = new FeedStart.Page(page.nextPageToken().get());
                }
            });
            if (seen != n) throw new IllegalStateException("the feed over " + n + " updates gave " + seen + " changes");
            ctx.measure(scan, 1, () -> graph.query(dev.omnigraph.engine.ReadTarget.main(),
                    "query all() { match { $p: Person } return { $p.name, $p.age } }", "all", Map.of())
                    .flatMapMany(out -> out.rows()).count().block());
        }
        ratio(feed, scan);
        graph.close();
        BenchContext.deleteTree(dir);
    }

    private static void ratio(Series row, Series baseline) {
        if (!row.samples().isEmpty() && !baseline.samples().isEmpty()) {
            row.note(String.format(Locale.ROOT, "%.2f× baseline", row.median() / baseline.median()));
        }
    }

    private static String line(int type, int i, int age) {
        return "{\"type\":\"T" + type + "\",\"data\":{\"name\":\"t" + type + "-" + i + "\",\"age\":" + age + "}}";
    }

    private static Flux<ByteBuffer> lines(int type, int from, int to, int age) {
        StringBuilder ndjson = new StringBuilder();
        for (int i = from; i < to; i++) ndjson.append(line(type, i, age)).append('\n');
        return Flux.just(ByteBuffer.wrap(ndjson.toString().getBytes(StandardCharsets.UTF_8)));
    }
}
