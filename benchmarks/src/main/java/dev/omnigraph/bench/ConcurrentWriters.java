package dev.omnigraph.bench;

import dev.omnigraph.engine.GraphSnapshot;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.TableInfo;
import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * N single-row inserts in flight at once on one branch (N = 1, 4, 8, 16), each latency measured from
 * subscription to acknowledgement (gate queueing included); throughput is operations over the round's wall time.
 * Afterwards every acknowledged write must be present in the committed table. The baseline at each level is N
 * concurrent raw-Lance appends to one table (Lance rebases concurrent appends by itself). Each round runs on a
 * fresh graph and raw table. Neo4j embedded (one node per transaction, unique constraint on the key) runs the same N
 * writes in flight beside it, so the throughput a team weighing the two would compare is in the same run.
 */
final class ConcurrentWriters implements Scenario {

    @Override
    public String name() {
        return "concurrent-writers";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        List<Integer> levels = ctx.options().quick() ? List.of(1, 2, 4) : List.of(1, 4, 8, 16);
        int ops = ctx.options().pick(32, 4);
        int rounds = ctx.options().pick(4, 1);
        ScenarioReport report = new ScenarioReport(name(), "N concurrent single-row keyed inserts on one branch: "
                + "per-write latency and throughput, and a check that every acknowledged write is present; vs N "
                + "concurrent raw Lance appends; Neo4j embedded at the same concurrency beside them.")
                .unit("ms per write, from subscription to acknowledgement");
        Path dir = ctx.workDir(name());
        Optional<Neo4jEmbedded> neo4j = ctx.neo4j();
        report.note(ctx.neo4jStatus());
        TableStorage tables = ctx.services().tables();
        int verified = 0;
        for (int l = -1; l < levels.size(); l++) {
            boolean warmup = l < 0; // one unrecorded round at concurrency 1
            int level = warmup ? 1 : levels.get(l);
            String rawName = "raw lance: " + level + " concurrent appends";
            Series base = warmup ? null : report.row(rawName, null);
            Series ours = warmup ? null : report.row("omnigraph: " + level + " concurrent inserts", rawName);
            Series neo = warmup || neo4j.isEmpty() ? null
                    : report.row("neo4j embedded: " + level + " concurrent 1-node transactions", null);
            Map<String, Long> failures = new TreeMap<>();
            double oursSeconds = 0;
            double rawSeconds = 0;
            double neoSeconds = 0;
            for (int r = 0; r < (warmup ? 1 : rounds); r++) {
                // A fresh graph per round: per-write cost grows with history (see history-depth).
                Path roundDir = dir.resolve("level-" + level + "-round-" + r + (warmup ? "-warmup" : ""));
                Omnigraph graph = ctx.run(() -> Omnigraph.at(roundDir.resolve("graph"))
                        .services(ctx.services()).init(Workload.SCHEMA));
                Schema person = Workload.schemaOf(graph, "node:Person");
                TableRef raw = Workload.rawTable(ctx, roundDir.resolve("raw-person"), person);
                Set<String> acknowledged = ConcurrentHashMap.newKeySet();
                Set<String> rawAcknowledged = ConcurrentHashMap.newKeySet();
                rawSeconds += round(ctx, base, ops, level, i -> Workload.rawAppend(tables, raw,
                        List.of(Workload.personRow(person, "c" + i, level))).doOnSuccess(v -> rawAcknowledged.add("c" + i)));
                oursSeconds += round(ctx, ours, ops, level, i -> Workload.addPerson(graph, "c" + i, level)
                        .doOnSuccess(o -> acknowledged.add("c" + i))
                        .onErrorResume(e -> {
                            synchronized (failures) {
                                failures.merge(e.getClass().getSimpleName(), 1L, Long::sum);
                            }
                            return Mono.empty();
                        }));
                if (neo4j.isPresent()) {
                    Neo4jEmbedded db = neo4j.get();
                    String prefix = "cw-" + level + "-" + r + (warmup ? "w" : "") + "-";
                    // Neo4j's API blocks: each transaction runs on a bounded-elastic thread, N of them in flight.
                    neoSeconds += round(ctx, neo, ops, level, i -> Mono.fromRunnable(() -> db.insertPerson(prefix + i, level))
                            .subscribeOn(Schedulers.boundedElastic()));
                }
                verify(ctx, graph, acknowledged, raw, rawAcknowledged);
                verified += acknowledged.size() + rawAcknowledged.size();
                BenchContext.deleteTree(roundDir);
            }
            if (warmup) {
                continue;
            }
            long total = (long) ops * rounds;
            long failed = failures.values().stream().mapToLong(Long::longValue).sum();
            ours.note(String.format(Locale.ROOT, "throughput %.1f writes/s", (total - failed) / oursSeconds));
            ours.note(failed == 0 ? "all " + total + " acknowledged" : failed + " of " + total + " failed: " + failures);
            base.note(String.format(Locale.ROOT, "throughput %.1f appends/s", total / rawSeconds));
            if (neo != null) {
                neo.note(String.format(Locale.ROOT, "throughput %.1f writes/s; omnigraph's is %.2fx of it",
                        total / neoSeconds, ((total - failed) / oursSeconds) / (total / neoSeconds)));
            }
        }
        report.note(ops + " writes per round, " + rounds + " round(s) per level, each round on a fresh graph and raw "
                + "table (so at most " + (ops + 1) + " commits deep)");
        report.note("verified after every round: all " + verified + " acknowledged writes (graph: at its published "
                + "pin; raw: at HEAD) are present");
        return report;
    }

    /** Runs {@code ops} writes with {@code concurrency} in flight; returns the wall time in seconds. */
    private static double round(BenchContext ctx, Series row, int ops, int concurrency, IntFunction<Mono<?>> write) {
        Usage before = Usage.mark(ctx.counter());
        long start = System.nanoTime();
        Flux.range(0, ops)
                .flatMap(i -> Mono.defer(() -> {
                    long begun = System.nanoTime();
                    return write.apply(i).then(Mono.fromRunnable(() -> {
                        if (row != null) {
                            row.sampleNanos(System.nanoTime() - begun);
                        }
                    }));
                }), concurrency)
                .then().block(BenchContext.OP_TIMEOUT);
        double seconds = (System.nanoTime() - start) / 1e9;
        if (row != null) {
            before.chargeTo(row, ops);
        }
        return seconds;
    }

    /** Every acknowledged write must be in the committed table: the graph at its published pin, raw at HEAD. */
    private static void verify(BenchContext ctx, Omnigraph graph, Set<String> acknowledged, TableRef raw,
                               Set<String> rawAcknowledged) {
        TableStorage tables = ctx.services().tables();
        GraphSnapshot snapshot = ctx.run(() -> graph.snapshot(ReadTarget.main()));
        TableInfo table = snapshot.table("node:Person").orElseThrow();
        TableRef ref = new TableRef(graph.root().resolve(table.path()).toString(), table.lanceBranch());
        Set<String> present = ids(ctx, tables, ref, OptionalLong.of(table.version()));
        Set<String> rawPresent = ids(ctx, tables, raw, OptionalLong.empty());
        Set<String> missing = acknowledged.stream().filter(id -> !present.contains(id)).collect(Collectors.toSet());
        Set<String> rawMissing = rawAcknowledged.stream().filter(id -> !rawPresent.contains(id)).collect(Collectors.toSet());
        if (!missing.isEmpty() || !rawMissing.isEmpty()) {
            throw new IllegalStateException("acknowledged writes missing: omnigraph " + missing + ", raw " + rawMissing);
        }
    }

    private static Set<String> ids(BenchContext ctx, TableStorage tables, TableRef ref, OptionalLong version) {
        return Set.copyOf(ctx.run(() -> tables.open(ref, version)
                .flatMapMany(s -> tables.scan(s, ScanRequest.all().withColumns(List.of("id"))))
                .flatMapIterable(RowBatch::rows)
                .map(row -> (String) row.get("id"))
                .collectList()));
    }
}
