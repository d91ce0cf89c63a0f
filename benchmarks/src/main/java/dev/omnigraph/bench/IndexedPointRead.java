package dev.omnigraph.bench;

import dev.omnigraph.engine.MaintenanceOperations;
import dev.omnigraph.engine.GraphSnapshot;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.QueryOutput;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.TableInfo;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import reactor.core.publisher.Mono;

/**
 * Keyed lookup of one Person with and without the BTREE on {@code id}, in one run on one graph: first at the head
 * the loads left (since issue 28 a load builds the BTREE on id, so that head is indexed too; the notes say so), then
 * {@code index ensure}, then at the indexed head. Each phase interleaves the engine's query
 * with a raw Lance filtered scan ({@code id = '…'}) of the same pinned version, repetition by repetition. The
 * table sizes come from {@code -Domnigraph.bench.point-rows} (default 100,000), one fresh graph per size.
 */
final class IndexedPointRead implements Scenario {
    static final String RAW_PLAIN = "raw lance, head after load: open pinned version + filtered scan";
    static final String RAW_INDEXED = "raw lance, BTREE on id: open pinned version + filtered scan";
    /** System property listing the table sizes to measure (1,000,000 takes minutes to load here). */
    static final String ROWS_PROPERTY = "omnigraph.bench.point-rows";

    @Override
    public String name() {
        return "point-read-indexed";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        List<Integer> sizes = ctx.options().quick() ? List.of(50) : sizes(System.getProperty(ROWS_PROPERTY, "100000"));
        ScenarioReport report = new ScenarioReport(name(), "Keyed lookup of one Person among " + sizes
                + " rows, without and with the BTREE index `index ensure` builds on id, each vs raw Lance on the same version.")
                .unit("ms per lookup");
        for (int persons : sizes) {
            measure(ctx, report, persons);
        }
        return report;
    }

    /** Sizes from {@code -Domnigraph.bench.point-rows=100000,1000000}. */
    static List<Integer> sizes(String spec) {
        return java.util.Arrays.stream(spec.split(",")).map(String::trim).map(Integer::parseInt).toList();
    }

    private void measure(BenchContext ctx, ScenarioReport report, int persons) throws Exception {
        String at = " (" + persons + " rows)";
        Omnigraph graph = PointRead.seeded(ctx, ctx.workDir(name() + "-" + persons), persons);
        TableInfo plain = person(ctx, graph, ReadTarget.main());
        TableStorage tables = ctx.services().tables();
        TableRef ref = new TableRef(graph.root().resolve(plain.path()).toString(), plain.lanceBranch());
        Series rawPlain = report.row(RAW_PLAIN + at, null);
        Series oursPlain = report.row("omnigraph, head after load: query byName" + at, RAW_PLAIN + at);
        lookups(ctx, graph, tables, ref, plain.version(), persons, rawPlain, oursPlain);

        long started = System.nanoTime();
        ctx.run(() -> graph.maintenance().ensureIndexes(MaintenanceOperations.Target.main()));
        // Indexes the loads built cover the first load's fragments only; optimize adds segments for the rest.
        ctx.run(() -> graph.maintenance().optimize(MaintenanceOperations.Target.main()));
        long ensureMs = (System.nanoTime() - started) / 1_000_000;
        TableInfo indexed = person(ctx, graph, ReadTarget.main());
        Series rawIndexed = report.row(RAW_INDEXED + at, RAW_PLAIN + at);
        Series oursIndexed = report.row("omnigraph, BTREE on id: query byName at the head" + at, RAW_INDEXED + at);
        lookups(ctx, graph, tables, ref, indexed.version(), persons, rawIndexed, oursIndexed);
        report.note(persons + " rows: " + plain.rowCount() + " rows in " + Workload.chunks(persons, 8_192).size()
                + " fragment(s); `index ensure` + `optimize` took " + ensureMs + " ms (BTREE on id of Person and on id/src/dst of "
                + "the edge tables); versions " + plain.version() + " (after load) and " + indexed.version() + " (after index ensure + optimize)"
                + (plain.version() == indexed.version() ? ": the same, the loads already built the BTREE on id, so the "
                + "first phase is indexed too" : ""));
    }

    /** Raw and engine lookups of the same random keys, interleaved repetition by repetition. */
    private static void lookups(BenchContext ctx, Omnigraph graph, TableStorage tables, TableRef ref, long version,
                                int persons, Series raw, Series ours) throws Exception {
        Random keys = new Random(42);
        int warmup = ctx.options().pick(20, 2);
        int reps = ctx.options().pick(200, 3);
        for (int i = 0; i < warmup + reps; i++) {
            boolean measured = i >= warmup;
            String name = Workload.personName(keys.nextInt(persons));
            check(name, ctx.runOrMeasure(measured ? raw : null, () -> PointRead.rawLookup(tables, ref, version, name)).size(),
                    ctx.runOrMeasure(measured ? ours : null, () -> lookup(graph, ReadTarget.main(), name)));
        }
    }

    private static void check(String name, int raw, List<List<Object>> found) {
        if (raw != 1 || found.size() != 1 || !name.equals(found.get(0).get(0))) {
            throw new IllegalStateException("lookup of " + name + " returned raw " + raw + " row(s), query " + found);
        }
    }

    private static TableInfo person(BenchContext ctx, Omnigraph graph, ReadTarget target) throws Exception {
        GraphSnapshot snapshot = ctx.run(() -> graph.snapshot(target));
        return snapshot.table("node:Person").orElseThrow();
    }

    static Mono<List<List<Object>>> lookup(Omnigraph graph, ReadTarget target, String name) {
        return graph.query(target, Workload.QUERIES, "byName", Map.of("name", name))
                .flatMap((QueryOutput output) -> output.rows().collectList());
    }
}
