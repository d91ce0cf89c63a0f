package dev.omnigraph.bench;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.WriteOptions;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Branch create must cost the same whatever the graph holds: its latency and storage calls on a graph of 3 tables
 * with a short history, the same graph after many commits, and a graph of many tables. Then the first write on a
 * fresh branch (which forks the table it touches) against a write on main, in the same run.
 */
final class Branches implements Scenario {

    @Override
    public String name() {
        return "branches";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        int reps = ctx.options().pick(20, 3);
        int deep = ctx.options().pick(300, 10);
        int manyTables = ctx.options().pick(60, 8);
        ScenarioReport report = new ScenarioReport(name(), "Branch create on graphs of different size and history depth; "
                + "first write on a fresh branch vs a write on main.").unit("ms per operation");
        Path dir = ctx.workDir(name());

        Omnigraph small = ctx.run(() -> Omnigraph.at(dir.resolve("small")).services(ctx.services()).init(Workload.SCHEMA));
        Series shallow = report.row("create: 3 tables, 1 commit", null);
        for (int r = 0; r < reps; r++) {
            String branch = String.format("s%03d", r); // fixed width: no name a prefix of another (LanceBranchNames)
            ctx.measure(shallow, () -> small.branches().create(branch));
        }
        for (int i = 0; i < deep; i++) {
            String text = "n" + i;
            ctx.run(() -> Workload.addNote(small, text));
        }
        Series deepRow = report.row(String.format(Locale.ROOT, "create: 3 tables, %,d commits", deep + 1), shallow.name());
        for (int r = 0; r < reps; r++) {
            String branch = String.format("d%03d", r);
            ctx.measure(deepRow, () -> small.branches().create(branch));
        }

        Omnigraph wide = ctx.run(() -> Omnigraph.at(dir.resolve("wide")).services(ctx.services()).init(wideSchema(manyTables)));
        Series wideRow = report.row(String.format(Locale.ROOT, "create: %d tables, 1 commit", manyTables), shallow.name());
        for (int r = 0; r < reps; r++) {
            String branch = String.format("w%03d", r);
            ctx.measure(wideRow, () -> wide.branches().create(branch));
        }

        Series onMain = report.row("write: insert Person on main", null);
        Series firstOnBranch = report.row("write: first insert Person on a fresh branch (forks Person)", onMain.name());
        Series laterOnBranch = report.row("write: second insert Person on that branch", onMain.name());
        for (int r = 0; r < reps; r++) {
            String branch = String.format("f%03d", r);
            ctx.run(() -> small.branches().create(branch));
            int age = r;
            ctx.measure(onMain, () -> Workload.addPerson(small, "m" + age, age));
            ctx.measure(firstOnBranch, () -> addPerson(small, branch, "b" + age, age));
            ctx.measure(laterOnBranch, () -> addPerson(small, branch, "c" + age, age));
        }
        report.note("ratio: create rows against the 3-table shallow create (flat = O(1) in tables and history); write rows "
                + "against the write on main");
        return report;
    }

    private static reactor.core.publisher.Mono<?> addPerson(Omnigraph graph, String branch, String name, int age) {
        return graph.mutate(branch, Workload.QUERIES, "addPerson", Map.of("name", name, "age", age), WriteOptions.DEFAULT);
    }

    private static String wideSchema(int tables) {
        StringBuilder schema = new StringBuilder();
        for (int i = 0; i < tables; i++) {
            schema.append("node T").append(i).append(" {\n    name: String @key\n}\n");
        }
        return schema.toString();
    }
}
