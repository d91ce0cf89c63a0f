package dev.omnigraph.bench;

import dev.omnigraph.engine.MaintenanceOperations;
import dev.omnigraph.engine.internal.HandleInternals;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.cleanup.CleanupOptions;
import dev.omnigraph.engine.cleanup.CleanupReport;
import dev.omnigraph.engine.maintain.MinorCompactions;
import dev.omnigraph.engine.maintain.OptimizeResult;
import dev.omnigraph.storage.root.GraphRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A long-lived graph under maintenance: single-row {@code insert Note} writes up to a depth D (10,000, or
 * {@code --max-depth}), with {@code optimize} and then {@code cleanup --keep 10 --confirm} every D/10 commits. At
 * each checkpoint, after maintenance: a few single-row writes (latency and storage calls, against the first
 * checkpoint's), the optimize and the cleanup themselves, and the graph's bytes on disk against its live data (a
 * fresh graph loaded with the same rows). A flat protocol keeps the write rows near 1× and the disk ratio bounded.
 */
final class MaintainedHistory implements Scenario {
    /** Commits kept per branch by each cleanup (numbers.md §5 recommends 10). */
    private static final int KEEP = 10;
    /** Rows per load commit when building the live-data copy (under the per-commit entity limit). */
    private static final int LOAD_CHUNK = 5_000;

    @Override
    public String name() {
        return "maintained-history";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        int depth = ctx.options().quick() ? 40 : Math.min(10_000, ctx.options().maxDepth());
        int every = Math.max(1, depth / 10);
        int reps = ctx.options().pick(10, 2);
        ScenarioReport report = new ScenarioReport(name(), String.format(Locale.ROOT, "Single-row writes up to %,d commits; "
                + "optimize + cleanup --keep %d every %,d; measured after each maintenance.", depth, KEEP, every))
                .unit("ms per operation");
        Path dir = ctx.workDir(name());
        Path root = dir.resolve("graph");
        Omnigraph graph = ctx.run(() -> Omnigraph.at(root).services(ctx.services()).init(Workload.SCHEMA));
        HandleInternals.of(graph).minorCompactionEvery(MinorCompactions.EVERY_WRITES);
        long budgetNanos = (long) (ctx.options().historyBudgetMinutes() * 60e9);
        long began = System.nanoTime();
        int notes = 0;
        int commits = 1; // genesis
        String firstWrite = null;
        long segmentBegan = System.nanoTime();
        for (int checkpoint = every; checkpoint <= depth; checkpoint += every) {
            while (commits < checkpoint) {
                if (System.nanoTime() - began > budgetNanos) {
                    report.note(String.format(Locale.ROOT, "CAPPED: the %.0f min budget (--history-budget-min) ran out "
                            + "at %,d commits, before checkpoint %,d", ctx.options().historyBudgetMinutes(), commits,
                            checkpoint));
                    return finish(report, began);
                }
                String text = "h" + notes++;
                ctx.run(() -> Workload.addNote(graph, text));
                commits++;
                if (commits % 500 == 0) ctx.log(String.format(Locale.ROOT, "%s: %,d commits", name(), commits));
            }
            String at = String.format(Locale.ROOT, "%,d", commits);
            double buildMinutes = (System.nanoTime() - segmentBegan) / 60e9;
            Series optimize = report.row("optimize @ " + at, null);
            OptimizeResult optimized = ctx.measure(optimize,
                    () -> graph.maintenance().optimize(MaintenanceOperations.Target.main()));
            optimized.compacted().forEach(table -> optimize.note(String.format(Locale.ROOT, "%s: %,d → %,d fragments",
                    table.tableKey(), table.fragmentsBefore(), table.fragmentsAfter())));
            commits += optimized.commitId().isPresent() ? 1 : 0;
            Series cleanup = report.row("cleanup --keep " + KEEP + " @ " + at, null);
            CleanupReport cleaned = ctx.measure(cleanup, () -> graph.maintenance().cleanup(
                    CleanupOptions.of(OptionalInt.of(KEEP), Optional.empty(), true).withOrphanGrace(Duration.ZERO)));
            long onDisk = BenchContext.bytesUnder(root);
            long manifest = BenchContext.bytesUnder(root.resolve("__manifest"));
            // What the newest 10 commits' time travel costs: a --keep 1 preview reports what it would also free.
            long keepOneFloor = onDisk - ctx.run(() -> graph.maintenance().cleanup(CleanupOptions.of(OptionalInt.of(1), Optional.empty(),
                    false))).bytes();
            long live = liveBytes(ctx, dir.resolve("live"), notes);
            String disk = String.format(Locale.ROOT, "reclaimed %,d versions, %,d files, %.2f MB; on disk %.2f MB (of it "
                    + "__manifest %.2f MB; %.2f MB with --keep 1), live data %.2f MB: %.2f×; writes since the last "
                    + "checkpoint took %.1f min", cleaned.versions(), cleaned.files(), cleaned.bytes() / 1e6,
                    onDisk / 1e6, manifest / 1e6, keepOneFloor / 1e6, live / 1e6, (double) onDisk / live, buildMinutes);
            cleanup.note(disk);
            ctx.log(name() + " @ " + at + ": " + disk);
            String parts = DiskComposition.of(root);
            cleanup.note("on disk by part: " + parts);
            ctx.log(name() + " @ " + at + " by part: " + parts);
            String lineage = DiskComposition.lineageFiles(root);
            cleanup.note("__manifest data files: " + lineage);
            ctx.log(name() + " @ " + at + " __manifest data files: " + lineage);
            Series write = report.row("insert Note @ " + at, firstWrite);
            firstWrite = firstWrite == null ? write.name() : firstWrite;
            for (int r = 0; r < reps; r++) {
                String text = "h" + notes++;
                ctx.measure(write, () -> Workload.addNote(graph, text));
                commits++;
            }
            segmentBegan = System.nanoTime();
        }
        return finish(report, began);
    }

    private static ScenarioReport finish(ScenarioReport report, long began) {
        report.note("ratio: each write row against the first checkpoint's; disk: the graph root after cleanup against a "
                + "fresh graph loaded with the same rows (its `__manifest` and audit history included)");
        report.note(String.format(Locale.ROOT, "built, maintained and measured in %.1f min", (System.nanoTime() - began) / 60e9));
        return report;
    }

    /** The bytes of a fresh graph holding the same {@code notes} rows (loaded in a few commits), then deleted. */
    private static long liveBytes(BenchContext ctx, Path dir, int notes) throws IOException {
        Files.createDirectories(dir);
        try {
            // The NDJSON files sit beside dir/graph (not counted) and go with dir below.
            Omnigraph fresh = Workload.seeded(ctx, new GraphRoot.Local(dir.resolve("graph")), Workload.SCHEMA, dir,
                    "notes", notes, LOAD_CHUNK, i -> "{\"type\":\"Note\",\"data\":{\"text\":\"h" + i + "\"}}");
            ctx.run(() -> fresh.maintenance().optimize(MaintenanceOperations.Target.main()));
            fresh.close();
            ctx.log("maintained-history live data by part: " + DiskComposition.of(dir.resolve("graph")));
            return BenchContext.bytesUnder(dir.resolve("graph"));
        } finally {
            BenchContext.deleteTree(dir);
        }
    }
}
