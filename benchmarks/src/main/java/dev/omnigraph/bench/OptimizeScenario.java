package dev.omnigraph.bench;

import dev.omnigraph.engine.MaintenanceOperations;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.QueryOutput;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.maintain.OptimizeResult;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code optimize} buys: after d single-row writes (one fragment each on the Note table), one single-row
 * write and one full read of the Note table, measured before and after one optimize of the same graph, and the
 * optimize itself. Series are compared with their own "before" row.
 */
final class OptimizeScenario implements Scenario {
    private static final String COUNT = "query notes() { match { $n: Note } return { count($n) as n } }";

    @Override
    public String name() {
        return "optimize";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        int depth = ctx.options().quick() ? 20 : Math.min(1_000, ctx.options().maxDepth());
        int reps = ctx.options().pick(10, 2);
        ScenarioReport report = new ScenarioReport(name(), "One single-row write and one full Note read after "
                + depth + " single-row writes, before and after one optimize.").unit("ms per operation");
        Path dir = ctx.workDir(name());
        Omnigraph graph = ctx.run(() -> Omnigraph.at(dir.resolve("graph")).services(ctx.services()).init(Workload.SCHEMA));
        long began = System.nanoTime();
        for (int i = 0; i < depth; i++) {
            String text = "h" + i;
            ctx.run(() -> Workload.addNote(graph, text));
        }
        report.note(String.format(Locale.ROOT, "history: %,d single-row writes in %.1f s", depth,
                (System.nanoTime() - began) / 1e9));
        Series writeBefore = report.row("insert Note, before optimize", null);
        Series readBefore = report.row("count every Note, before optimize", null);
        measure(ctx, graph, writeBefore, readBefore, reps, "b");
        Series optimize = report.row("optimize (one run)", null);
        OptimizeResult result = ctx.measure(optimize,
                    () -> graph.maintenance().optimize(MaintenanceOperations.Target.main()));
        result.compacted().forEach(table -> optimize.note(String.format(Locale.ROOT, "%s: %,d → %,d fragments",
                table.tableKey(), table.fragmentsBefore(), table.fragmentsAfter())));
        Series writeAfter = report.row("insert Note, after optimize", writeBefore.name());
        Series readAfter = report.row("count every Note, after optimize", readBefore.name());
        measure(ctx, graph, writeAfter, readAfter, reps, "a");
        report.note("ratio: the after row against its before row");
        return report;
    }

    private static void measure(BenchContext ctx, Omnigraph graph, Series write, Series read, int reps, String tag) {
        for (int r = 0; r < reps; r++) {
            String text = tag + r;
            ctx.measure(write, () -> Workload.addNote(graph, text));
            ctx.measure(read, () -> graph.query(ReadTarget.main(), COUNT, "notes", Map.of())
                    .flatMapMany(QueryOutput::rows).collectList());
        }
    }
}
