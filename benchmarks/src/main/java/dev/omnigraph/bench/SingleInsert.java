package dev.omnigraph.bench;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.storage.TableRef;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One-row {@code .gq} insert mutations end to end through the Mono API, against the raw-Lance baseline: open the
 * latest version, stage a one-row Append, commit it once, on a table of the same schema holding the same row.
 * The three series are interleaved per repetition so machine noise hits them alike. Per-write cost grows with
 * history (see history-depth), so the graph and the raw table are recreated every {@value #BLOCK} repetitions:
 * this scenario measures a young graph, at most {@code 2 × BLOCK + 1} commits deep.
 */
final class SingleInsert implements Scenario {
    static final String RAW = "raw lance: open + stage 1-row append + commit";
    static final int BLOCK = 10;

    @Override
    public String name() {
        return "single-insert";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        ScenarioReport report = new ScenarioReport(name(), "One-row insert, end to end (compile, plan, stage, gates, "
                + "sidecar, commit, publish), vs raw Lance staged 1-row append + commit on a table of the same schema.")
                .unit("ms per single-row write");
        Path dir = ctx.workDir(name());
        Series base = report.row(RAW, null);
        Series keyed = report.row("omnigraph: insert Person (keyed; a key known new is appended)", RAW);
        Series note = report.row("omnigraph: insert Note (unkeyed, staged as append)", RAW);
        int warmup = ctx.options().pick(20, 2);
        int reps = ctx.options().pick(200, 3);
        Omnigraph graph = null;
        TableRef raw = null;
        Schema person = null;
        for (int i = 0; i < warmup + reps; i++) {
            boolean measured = i >= warmup;
            String name = "si-" + i;
            if (i % BLOCK == 0) {
                Path block = dir.resolve("block-" + i);
                BenchContext.deleteTree(dir.resolve("block-" + (i - BLOCK)));
                graph = ctx.run(() -> Omnigraph.at(block.resolve("graph")).services(ctx.services()).init(Workload.SCHEMA));
                person = Workload.schemaOf(graph, "node:Person");
                raw = Workload.rawTable(ctx, block.resolve("raw-person"), person);
            }
            Omnigraph g = graph;
            TableRef r = raw;
            List<java.util.Map<String, Object>> row = List.of(Workload.personRow(person, name, 36));
            ctx.runOrMeasure(measured ? base : null, () -> Workload.rawAppend(ctx.services().tables(), r, row));
            ctx.runOrMeasure(measured ? keyed : null, () -> Workload.addPerson(g, name, 36));
            ctx.runOrMeasure(measured ? note : null, () -> Workload.addNote(g, name));
        }
        report.note("warm-up " + warmup + " repetitions per series; a fresh graph and raw table every " + BLOCK
                + " repetitions, so every write lands on a graph at most " + (2 * BLOCK + 1) + " commits deep (a raw "
                + "table at most " + (BLOCK + 2) + " versions deep): per-write cost grows with history, see history-depth");
        return report;
    }

}
