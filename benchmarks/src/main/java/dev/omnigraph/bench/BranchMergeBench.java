package dev.omnigraph.bench;

import dev.omnigraph.engine.BranchOperations;
import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.merge.MergeOutcome;
import dev.omnigraph.engine.merge.MergeResult;
import dev.omnigraph.storage.SqlLiterals;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Branch merge of N changed Person entities (a third inserted, a third updated, a third deleted on the branch) into
 * a main that meanwhile got N unrelated inserts: a three-way merge of one table. Baseline: the same rows applied to
 * a raw Lance table holding the same base rows, as one staged upsert and one staged delete (two commits). Then
 * main (now holding the merge) is merged into a branch made before the merge and never written: the same N
 * changes arrive by pointer-only adopt (no rows written).
 */
final class BranchMergeBench implements Scenario {
    static final String RAW = "raw lance: upsert + delete of the same rows (2 commits)";
    private static final String DROP = "query drop() { delete Person where age > 500 }";

    @Override
    public String name() {
        return "branch-merge";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        // N = 10,000 writes 9,999 entities of one type: above one transaction's 8,192, so a chain of two chunks.
        List<Integer> sizes = List.of(ctx.options().pick(100, 30), ctx.options().pick(10_000, 90));
        int reps = ctx.options().pick(5, 2);
        ScenarioReport report = new ScenarioReport(name(), "Merge of a branch with N changed Person entities (N/3 "
                + "inserted, updated, deleted) into a main with N unrelated inserts; vs raw Lance upsert + delete of "
                + "the same rows.").unit("ms per merge");
        Path dir = ctx.workDir(name());
        TableStorage tables = ctx.services().tables();
        for (int n : sizes) {
            Series raw = report.row(String.format(Locale.ROOT, "N=%,d: %s", n, RAW), null);
            Series merge = report.row(String.format(Locale.ROOT, "N=%,d: omnigraph branch merge (three-way, 1 commit)", n),
                    raw.name());
            Series pointer = report.row(String.format(Locale.ROOT,
                    "N=%,d: omnigraph merge of main into an untouched branch (pointer-only adopt)", n), raw.name());
            int third = n / 3;
            for (int rep = 0; rep < reps; rep++) {
                Path repDir = dir.resolve("n" + n + "-" + rep);
                Omnigraph graph = ctx.run(() -> Omnigraph.at(repDir.resolve("graph"))
                        .services(ctx.services()).init(Workload.SCHEMA));
                Schema schema = Workload.schemaOf(graph, "node:Person");
                // Base: persons [0, 3n): [0, third) are deleted on the branch (age 1000), [third, 2·third) updated.
                List<Map<String, Object>> base = new ArrayList<>();
                for (int i = 0; i < 3 * n; i++) base.add(Workload.personRow(schema, Workload.personName(i), i < third ? 1000 : 1));
                load(ctx, graph, "main", base, schema);
                ctx.run(() -> graph.branches().create("f"));
                List<Map<String, Object>> upserts = new ArrayList<>();
                for (int i = third; i < 2 * third; i++) upserts.add(Workload.personRow(schema, Workload.personName(i), 2));
                for (int i = 0; i < third; i++) upserts.add(Workload.personRow(schema, "new" + i, 3));
                load(ctx, graph, "f", upserts, schema);
                ctx.run(() -> graph.mutate("f", DROP, "drop", Map.of(), WriteOptions.DEFAULT));
                List<Map<String, Object>> unrelated = new ArrayList<>();
                for (int i = 0; i < n; i++) unrelated.add(Workload.personRow(schema, "main" + i, 4));
                load(ctx, graph, "main", unrelated, schema);
                ctx.run(() -> graph.branches().create("g")); // untouched: later merges main by pointer
                List<String> deletes = new ArrayList<>();
                for (int i = 0; i < third; i++) deletes.add(Workload.personName(i));

                TableRef rawPersons = Workload.rawTable(ctx, repDir.resolve("raw-person"), schema);
                ctx.run(() -> Workload.rawAppend(tables, rawPersons, base));
                ctx.measure(raw, 2, () -> {
                    ctx.run(() -> Workload.rawUpsert(tables, rawPersons, upserts));
                    return ctx.run(() -> tables.open(rawPersons, OptionalLong.empty())
                            .flatMap(snapshot -> tables.stageDelete(snapshot, SqlLiterals.inList("id", deletes), Map.of()))
                            .flatMap(handle -> tables.commitStaged(handle.orElseThrow())));
                });
                MergeResult result = ctx.measure(merge, () -> graph.branches().merge(BranchOperations.Merge.of("f", "main")));
                if (result.outcome() != MergeOutcome.MERGED || result.affectedNodes() != 3L * third) {
                    throw new IllegalStateException("merge of N=" + n + " gave " + result);
                }
                MergeResult adopted = ctx.measure(pointer, () -> graph.branches().merge(BranchOperations.Merge.of("main", "g")));
                if (adopted.outcome() != MergeOutcome.FAST_FORWARD || adopted.affectedNodes() != 3L * third) {
                    throw new IllegalStateException("pointer-only merge of N=" + n + " gave " + adopted);
                }
                BenchContext.deleteTree(repDir);
            }
            if (!raw.samples().isEmpty()) {
                merge.note(String.format(Locale.ROOT, "%.2f× raw lance", merge.median() / raw.median()));
                pointer.note(String.format(Locale.ROOT, "%.2f× raw lance", pointer.median() / raw.median()));
            }
        }
        report.note("one merge commit per sample; the merge reads both row deltas (base → branch, base → main) in id order");
        report.note("upstream's certified shortcut is 3.9× raw Lance (pure inserts only)");
        return report;
    }

    /** Loads rows in chunks within the per-commit limit (unmeasured set-up). */
    private static void load(BenchContext ctx, Omnigraph graph, String branch, List<Map<String, Object>> rows, Schema schema) {
        for (int from = 0; from < rows.size(); from += 8_000) {
            StringBuilder ndjson = new StringBuilder();
            for (Map<String, Object> row : rows.subList(from, Math.min(rows.size(), from + 8_000))) {
                ndjson.append("{\"type\":\"Person\",\"data\":{\"name\":\"").append(row.get("name"))
                        .append("\",\"age\":").append(row.get("age")).append("}}\n");
            }
            byte[] bytes = ndjson.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            ctx.run(() -> graph.load(branch, LoadMode.MERGE, reactor.core.publisher.Flux.just(java.nio.ByteBuffer.wrap(bytes)),
                    LoadOptions.DEFAULT));
        }
    }
}
