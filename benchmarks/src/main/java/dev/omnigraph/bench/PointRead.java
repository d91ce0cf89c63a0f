package dev.omnigraph.bench;

import dev.omnigraph.engine.GraphSnapshot;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.QueryOutput;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.TableInfo;
import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.SqlLiterals;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.root.GraphRoot;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import reactor.core.publisher.Mono;

/**
 * A keyed lookup query ({@code match { $p: Person { name: $name } }}) against the raw-Lance baseline: open the
 * same dataset at the same pinned version and scan it with the filter {@code id = '…'}. Keys are drawn from a
 * seeded random sequence; every answer is checked to be exactly the one row asked for.
 */
final class PointRead implements Scenario {
    static final String RAW = "raw lance: open pinned version + filtered scan";

    @Override
    public String name() {
        return "point-read";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        int persons = ctx.options().pick(10_000, 50);
        ScenarioReport report = new ScenarioReport(name(), "Keyed lookup of one Person among " + persons
                + " (loaded by NDJSON in chunks of 8,192), vs a raw Lance filtered scan of the same pinned dataset.")
                .unit("ms per lookup");
        Omnigraph graph = seeded(ctx, ctx.workDir(name()), persons);
        GraphSnapshot snapshot = ctx.run(() -> graph.snapshot(ReadTarget.main()));
        TableInfo table = snapshot.table("node:Person").orElseThrow();
        TableRef ref = new TableRef(graph.root().resolve(table.path()).toString(), table.lanceBranch());
        TableStorage tables = ctx.services().tables();

        Series base = report.row(RAW, null);
        Series ours = report.row("omnigraph: query byName (snapshot + compiled lookup)", RAW);
        Random keys = new Random(42);
        int warmup = ctx.options().pick(20, 2);
        int reps = ctx.options().pick(200, 3);
        for (int i = 0; i < warmup + reps; i++) {
            boolean measured = i >= warmup;
            String name = Workload.personName(keys.nextInt(persons));
            List<Map<String, Object>> raw = measured
                    ? ctx.measure(base, () -> rawLookup(tables, ref, table.version(), name))
                    : ctx.run(() -> rawLookup(tables, ref, table.version(), name));
            List<List<Object>> found = measured
                    ? ctx.measure(ours, () -> lookup(graph, name))
                    : ctx.run(() -> lookup(graph, name));
            if (raw.size() != 1 || found.size() != 1 || !name.equals(found.get(0).get(0))) {
                throw new IllegalStateException("lookup of " + name + " returned raw " + raw + ", query " + found);
            }
        }
        report.note("dataset: " + table.rowCount() + " rows in " + Workload.chunks(persons, 8_192).size()
                + " fragment(s); the loads built the BTREE on id every table gets (issue 28), so both lookups may use it");
        return report;
    }

    /** A graph at {@code dir/graph} holding {@code persons} Persons, loaded by NDJSON in chunks of 8,192. */
    static Omnigraph seeded(BenchContext ctx, Path dir, int persons) throws Exception {
        return Workload.seeded(ctx, new GraphRoot.Local(dir.resolve("graph")), Workload.SCHEMA, dir, "persons", persons,
                Workload.LOAD_CHUNK, Workload::personLine);
    }

    static Mono<List<Map<String, Object>>> rawLookup(TableStorage tables, TableRef ref, long version, String id) {
        return tables.open(ref, OptionalLong.of(version))
                .flatMapMany(snapshot -> tables.scan(snapshot, ScanRequest.where(SqlLiterals.eq("id", id))))
                .flatMapIterable(RowBatch::rows)
                .collectList();
    }

    static Mono<List<List<Object>>> lookup(Omnigraph graph, String name) {
        return graph.query(ReadTarget.main(), Workload.QUERIES, "byName", Map.of("name", name))
                .flatMap((QueryOutput output) -> output.rows().collectList());
    }
}
