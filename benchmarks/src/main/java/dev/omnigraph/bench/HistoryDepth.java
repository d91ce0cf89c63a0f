package dev.omnigraph.bench;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.storage.TableRef;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Storage calls and latency of one single-row mutation after 10, 100, 1,000 and 10,000 prior commits (the
 * anchor's weakness: its per-write calls grew with history). History is built with single-row {@code insert
 * Note} mutations, so the manifest and the Note table deepen while the Person table stays small: "insert Person
 * @ d" isolates graph-history cost, "insert Note @ d" adds a table that is d versions and fragments deep, and
 * "raw lance append @ d" shows what Lance itself costs at that depth. Capped by {@code --max-depth} and by a
 * build-time budget; the output says when either cut the run short.
 */
final class HistoryDepth implements Scenario {

    @Override
    public String name() {
        return "history-depth";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        List<Integer> wanted = ctx.options().quick() ? List.of(2, 5) : List.of(10, 100, 1_000, 10_000);
        int reps = ctx.options().pick(10, 2);
        ScenarioReport report = new ScenarioReport(name(), "One single-row mutation after d prior commits, d in "
                + wanted + "; history built by single-row inserts.").unit("ms per single-row write");
        List<Integer> levels = new ArrayList<>();
        for (int level : wanted) {
            if (level <= ctx.options().maxDepth()) {
                levels.add(level);
            } else {
                report.note("CAPPED: depth " + level + " skipped by --max-depth " + ctx.options().maxDepth());
            }
        }
        Path dir = ctx.workDir(name());
        Omnigraph graph = ctx.run(() -> Omnigraph.at(dir.resolve("graph")).services(ctx.services()).init(Workload.SCHEMA));
        Schema note = Workload.schemaOf(graph, "node:Note");
        TableRef raw = Workload.rawTable(ctx, dir.resolve("raw-note"), note);
        long budgetNanos = (long) (ctx.options().historyBudgetMinutes() * 60e9);
        long began = System.nanoTime();
        int commits = 1; // init's genesis commit
        int rawVersions = 2; // create + config
        double lastBuildMs = 0;
        String firstPerson = null;
        String firstNote = null;
        String firstRaw = null;
        int serial = 0;
        for (int level : levels) {
            double projected = lastBuildMs * 1e6 * Math.max(0, level - commits);
            if (System.nanoTime() - began + projected > budgetNanos) {
                report.note(String.format(Locale.ROOT, "CAPPED: depth %,d skipped: building %,d more commits at ≥ %.0f ms "
                        + "each would exceed the %.0f min history budget (--history-budget-min)", level, level - commits,
                        lastBuildMs, ctx.options().historyBudgetMinutes()));
                break;
            }
            long buildStart = System.nanoTime();
            int built = 0;
            int target = level;
            while (commits < target) {
                if (System.nanoTime() - began > budgetNanos) {
                    // Out of budget mid-build: measure where the history got to, and say so.
                    report.note(String.format(Locale.ROOT, "CAPPED: the %.0f min history budget ran out while building "
                            + "towards depth %,d; measured at depth %,d instead", ctx.options().historyBudgetMinutes(),
                            level, commits));
                    target = commits;
                    break;
                }
                long one = System.nanoTime();
                String text = "h" + serial++;
                ctx.run(() -> Workload.addNote(graph, text));
                lastBuildMs = (System.nanoTime() - one) / 1e6;
                commits++;
                built++;
                if (commits % 500 == 0) {
                    ctx.log(String.format(Locale.ROOT, "history-depth: %,d commits, last write %.0f ms", commits, lastBuildMs));
                }
            }
            int depth = commits;
            while (rawVersions < depth) {
                String text = "h" + serial++;
                ctx.run(() -> Workload.rawAppend(ctx.services().tables(), raw,
                        List.of(Workload.row(note, Map.of("id", text, "text", text)))));
                rawVersions++;
            }
            String d = String.format(Locale.ROOT, "%,d", depth);
            Series person = report.row("omnigraph: insert Person @ " + d, firstPerson);
            Series noteRow = report.row("omnigraph: insert Note @ " + d, firstNote);
            Series rawRow = report.row("raw lance: append @ " + d + " versions", firstRaw);
            firstPerson = firstPerson == null ? person.name() : firstPerson;
            firstNote = firstNote == null ? noteRow.name() : firstNote;
            firstRaw = firstRaw == null ? rawRow.name() : firstRaw;
            for (int r = 0; r < reps; r++) {
                String name = "d" + depth + "-" + r;
                int age = r % 100;
                ctx.measure(person, () -> Workload.addPerson(graph, name, age));
                ctx.measure(noteRow, () -> Workload.addNote(graph, name));
                ctx.measure(rawRow, () -> Workload.rawAppend(ctx.services().tables(), raw,
                        List.of(Workload.row(note, Map.of("id", name, "text", name)))));
                commits += 2;
                rawVersions++;
            }
            person.note(String.format(Locale.ROOT, "measured at depth %,d–%,d", depth, commits));
            if (built > 0) {
                noteRow.note(String.format(Locale.ROOT, "history build: %,d writes in %.1f s", built,
                        (System.nanoTime() - buildStart) / 1e9));
            }
            if (depth < level) {
                break;
            }
        }
        report.note("ratio: each row against the same series at the shallowest depth; a flat protocol keeps it near 1×");
        report.note(String.format(Locale.ROOT, "history built and measured in %.1f min", (System.nanoTime() - began) / 60e9));
        return report;
    }
}
