package dev.omnigraph.bench;

import dev.omnigraph.engine.MaintenanceOperations;
import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Bulk NDJSON loads of P persons + P Knows edges: append and merge chunked within the 8,192-entities-per-commit
 * limit (nodes first, then edges), and one overwrite of everything in a single commit. Baselines: raw Lance
 * staged appends / upserts / overwrites of the same rows in the same chunks, and Neo4j embedded inserting the same
 * nodes and relationships in 1,000-row transactions. Last, after {@code index ensure}, 2P more entities are appended
 * onto the indexed graph in the same chunks. One sample is one whole load of 2P entities.
 */
final class BulkLoad implements Scenario {
    static final String RAW_APPEND = "raw lance: append, same chunks";
    static final String RAW_UPSERT = "raw lance: upsert by id, same chunks";
    static final String RAW_OVERWRITE = "raw lance: overwrite, 1 commit per table";

    @Override
    public String name() {
        return "bulk-load";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        int persons = ctx.options().pick(50_000, 200);
        int chunk = ctx.options().pick(8_192, 64);
        int txSize = ctx.options().pick(1_000, 50);
        int warmup = ctx.options().pick(1, 0);
        int reps = ctx.options().pick(3, 2);
        List<int[]> chunks = Workload.chunks(persons, chunk);
        int commits = 2 * chunks.size();
        ScenarioReport report = new ScenarioReport(name(), String.format(Locale.ROOT, "%,d Person nodes + %,d Knows "
                + "edges by NDJSON: append and merge in chunks of %,d (%d commits), one overwrite (1 commit), then "
                + "index ensure and the same number appended onto the indexed graph; vs raw Lance of the same rows and "
                + "chunks, and Neo4j embedded in %,d-row transactions.",
                persons, persons, chunk, commits, txSize)).unit("ms per load of all " + 2 * persons + " entities");
        Path dir = ctx.workDir(name());
        List<Path> nodeFiles = new ArrayList<>();
        List<Path> edgeFiles = new ArrayList<>();
        for (int[] c : chunks) {
            nodeFiles.add(Workload.writeNdjson(dir.resolve("nodes-" + c[0] + ".ndjson"), c[0], c[1], Workload::personLine));
            edgeFiles.add(Workload.writeNdjson(dir.resolve("edges-" + c[0] + ".ndjson"), c[0], c[1],
                    i -> Workload.knowsLine(i, persons)));
        }
        // The indexed append: P more persons and P more edges (new ids, endpoints anywhere in both halves).
        List<Path> moreNodeFiles = new ArrayList<>();
        List<Path> moreEdgeFiles = new ArrayList<>();
        for (int[] c : chunks) {
            moreNodeFiles.add(Workload.writeNdjson(dir.resolve("more-nodes-" + c[0] + ".ndjson"), persons + c[0],
                    persons + c[1], Workload::personLine));
            moreEdgeFiles.add(Workload.writeNdjson(dir.resolve("more-edges-" + c[0] + ".ndjson"), persons + c[0],
                    persons + c[1], i -> Workload.knowsLine(i, 2 * persons)));
        }
        Path all = dir.resolve("all.ndjson");
        java.nio.file.Files.writeString(all, "");
        for (Path file : concat(nodeFiles, edgeFiles)) {
            java.nio.file.Files.write(all, java.nio.file.Files.readAllBytes(file), java.nio.file.StandardOpenOption.APPEND);
        }

        Series rawAppend = report.row(RAW_APPEND, null);
        Series append = report.row("omnigraph: load append (" + commits + " commits)", RAW_APPEND);
        Series rawUpsert = report.row(RAW_UPSERT, null);
        Series merge = report.row("omnigraph: load merge, every id existing (" + commits + " commits)", RAW_UPSERT);
        Series rawOverwrite = report.row(RAW_OVERWRITE, null);
        Series overwrite = report.row("omnigraph: load overwrite (1 commit)", RAW_OVERWRITE);
        Series indexedAppend = report.row("omnigraph: load append onto the indexed graph of " + 2 * persons
                + " entities (" + commits + " commits)", RAW_APPEND);
        Series neo = report.row("neo4j embedded: " + txSize + "-row transactions", RAW_APPEND);
        Optional<Neo4jEmbedded> neo4j = ctx.neo4j();
        report.note(ctx.neo4jStatus());

        TableStorage tables = ctx.services().tables();
        for (int rep = 0; rep < warmup + reps; rep++) {
            boolean measured = rep >= warmup;
            Path repDir = dir.resolve("rep-" + rep);
            Omnigraph graph = ctx.run(() -> Omnigraph.at(repDir.resolve("graph"))
                        .services(ctx.services()).init(Workload.SCHEMA));
            Schema personSchema = Workload.schemaOf(graph, "node:Person");
            Schema knowsSchema = Workload.schemaOf(graph, "edge:Knows");
            List<List<Map<String, Object>>> personRows = new ArrayList<>();
            List<List<Map<String, Object>>> knowsRows = new ArrayList<>();
            for (int[] c : chunks) {
                List<Map<String, Object>> p = new ArrayList<>();
                List<Map<String, Object>> k = new ArrayList<>();
                for (int i = c[0]; i < c[1]; i++) {
                    p.add(Workload.personRow(personSchema, Workload.personName(i), i % 100));
                    k.add(Workload.knowsRow(knowsSchema, "e" + i, Workload.personName(i),
                            Workload.personName(Workload.knowsTarget(i, persons))));
                }
                personRows.add(p);
                knowsRows.add(k);
            }
            TableRef rawPersons = Workload.rawTable(ctx, repDir.resolve("raw-person"), personSchema);
            TableRef rawKnows = Workload.rawTable(ctx, repDir.resolve("raw-knows"), knowsSchema);

            timed(ctx, measured ? rawAppend : null, commits, () -> {
                for (List<Map<String, Object>> rows : personRows) ctx.run(() -> Workload.rawAppend(tables, rawPersons, rows));
                for (List<Map<String, Object>> rows : knowsRows) ctx.run(() -> Workload.rawAppend(tables, rawKnows, rows));
            });
            timed(ctx, measured ? append : null, commits, () -> loadAll(ctx, graph, LoadMode.APPEND, nodeFiles, edgeFiles));
            timed(ctx, measured ? rawUpsert : null, commits, () -> {
                for (List<Map<String, Object>> rows : personRows) ctx.run(() -> Workload.rawUpsert(tables, rawPersons, rows));
                for (List<Map<String, Object>> rows : knowsRows) ctx.run(() -> Workload.rawUpsert(tables, rawKnows, rows));
            });
            timed(ctx, measured ? merge : null, commits, () -> loadAll(ctx, graph, LoadMode.MERGE, nodeFiles, edgeFiles));
            timed(ctx, measured ? rawOverwrite : null, 2, () -> {
                ctx.run(() -> Workload.rawOverwrite(tables, rawPersons, flatten(personRows)));
                ctx.run(() -> Workload.rawOverwrite(tables, rawKnows, flatten(knowsRows)));
            });
            timed(ctx, measured ? overwrite : null, 1,
                    () -> ctx.run(() -> graph.load("main", LoadMode.OVERWRITE, all, LoadOptions.DEFAULT)));
            long rows = graph.snapshot(dev.omnigraph.engine.ReadTarget.main()).block().table("node:Person").orElseThrow().rowCount();
            if (rows != persons) {
                throw new IllegalStateException("after the loads node:Person has " + rows + " rows, expected " + persons);
            }
            ctx.run(() -> graph.maintenance().ensureIndexes(MaintenanceOperations.Target.main()));
            timed(ctx, measured ? indexedAppend : null, commits,
                    () -> loadAll(ctx, graph, LoadMode.APPEND, moreNodeFiles, moreEdgeFiles));
            if (neo4j.isPresent()) {
                Neo4jEmbedded db = neo4j.get();
                db.clear();
                timed(ctx, measured ? neo : null, 0, () -> {
                    db.insertPersons(persons, txSize);
                    db.insertKnows(persons, persons, txSize);
                });
                long rels = db.count("MATCH ()-[r:KNOWS]->() RETURN count(r) AS c");
                if (rels != persons) {
                    throw new IllegalStateException("Neo4j holds " + rels + " relationships, expected " + persons);
                }
            }
            BenchContext.deleteTree(repDir);
        }
        for (Series row : List.of(rawAppend, append, rawUpsert, merge, rawOverwrite, overwrite, indexedAppend, neo)) {
            if (!row.samples().isEmpty()) {
                row.note(String.format(Locale.ROOT, "%,.0f entities/s", 2 * persons / (row.median() / 1000)));
            }
        }
        if (!neo.samples().isEmpty()) {
            for (Series row : List.of(append, overwrite, indexedAppend)) {
                row.note(String.format(Locale.ROOT, "%.2f× neo4j's time (%.2f× its throughput)",
                        row.median() / neo.median(), neo.median() / row.median()));
            }
        }
        report.note("storage calls/op are per commit (per load for overwrite); Neo4j makes none through the counters");
        report.note("each repetition uses a fresh graph and fresh raw tables; Neo4j is emptied (unmeasured) before each");
        return report;
    }

    private static void loadAll(BenchContext ctx, Omnigraph graph, LoadMode mode, List<Path> nodes, List<Path> edges) {
        for (Path file : concat(nodes, edges)) {
            ctx.run(() -> graph.load("main", mode, file, LoadOptions.DEFAULT));
        }
    }

    private static void timed(BenchContext ctx, Series row, long ops, Runnable work) {
        if (row == null) {
            work.run();
        } else {
            ctx.measure(row, Math.max(1, ops), () -> {
                work.run();
                return null;
            });
        }
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private static List<Map<String, Object>> flatten(List<List<Map<String, Object>>> chunks) {
        List<Map<String, Object>> out = new ArrayList<>();
        chunks.forEach(out::addAll);
        return out;
    }
}
