package dev.omnigraph.bench;

import dev.omnigraph.engine.internal.HandleInternals;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.error.RecoveryRequired;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * Read-write open time with 0, 10 and 100 pending sidecars. Each sidecar is left by a real write: the first table
 * commit lands, then {@code mutation.after_commit:1=error} fails the write and
 * {@code recovery.before_plan_write=error} fails its in-process compensation, so the sidecar stays and the open's
 * sweep must roll it back (Lance restore, then a publish).
 *
 * <p>The branch barrier refuses a write while any sidecar is pending on its branch, and a second write to a table
 * with an unpublished commit is refused as drift. So pending sidecars pile up only from concurrent writers on
 * disjoint tables that all armed before a crash. The scenario reproduces that state: one node type per sidecar,
 * each stuck write on its own table, issued through a handle whose object store hides {@code __recovery/}
 * listings (the barrier's view). Every sidecar is still written by the protocol itself.
 */
final class RecoverySweep implements Scenario {

    @Override
    public String name() {
        return "recovery-sweep";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        List<Integer> levels = ctx.options().quick() ? List.of(0, 2) : List.of(0, 10, 100);
        int types = Math.max(1, levels.get(levels.size() - 1));
        int warmup = 1;
        int reps = ctx.options().pick(3, 2);
        ScenarioReport report = new ScenarioReport(name(), "Read-write open of a graph with " + types + " node types, "
                + "with 0 / " + levels.subList(1, levels.size()) + " pending sidecars that each need a rollback.")
                .unit("ms per read-write open (manifest load, schema check, recovery sweep)");
        StringBuilder schema = new StringBuilder();
        StringBuilder queries = new StringBuilder();
        for (int t = 0; t < types; t++) {
            schema.append("node T").append(t).append(" { name: String @key }\n");
            queries.append("query w").append(t).append("($n: String) { insert T").append(t).append(" { name: $n } }\n");
        }
        Path dir = ctx.workDir(name());
        String baseline = label(0);
        List<Series> rows = levels.stream().map(level -> report.row(label(level), level == 0 ? null : baseline)).toList();
        for (int rep = 0; rep < warmup + reps; rep++) {
            for (int l = 0; l < levels.size(); l++) {
                // A fresh graph per open: every rollback publishes a commit, and per-write cost grows with history.
                Path root = dir.resolve("rep-" + rep + "-level-" + l).resolve("graph");
                ctx.run(() -> Omnigraph.at(root).services(ctx.services()).init(schema.toString())).close();
                strand(ctx, root, queries.toString(), levels.get(l));
                // A read-only handle lists the directory itself (a read-write one answers from its in-memory view).
                Omnigraph observer = ctx.run(() -> Omnigraph.at(root).services(ctx.services()).open(OpenMode.READ_ONLY));
                int pending = ctx.run(() -> HandleInternals.of(observer).pendingSidecars().count()).intValue();
                if (pending != levels.get(l)) {
                    throw new IllegalStateException(pending + " sidecars pending, expected " + levels.get(l));
                }
                Series row = rep >= warmup ? rows.get(l) : null;
                Omnigraph opened = row == null
                        ? ctx.run(() -> Omnigraph.at(root).services(ctx.services()).open(OpenMode.READ_WRITE))
                        : ctx.measure(row, () -> Omnigraph.at(root).services(ctx.services()).open(OpenMode.READ_WRITE));
                opened.close();
                long left = ctx.run(() -> HandleInternals.of(observer).pendingSidecars().count());
                if (left != 0) {
                    throw new IllegalStateException(left + " sidecars still pending after a read-write open");
                }
                BenchContext.deleteTree(root.getParent());
            }
        }
        Series zero = rows.get(0);
        for (int l = 1; l < levels.size(); l++) {
            Series row = rows.get(l);
            if (!row.samples().isEmpty()) {
                row.note(String.format(Locale.ROOT, "%.1f ms per sidecar over the empty open",
                        (row.median() - zero.median()) / levels.get(l)));
            }
        }
        report.note("storage calls/op are per open; every sidecar was rolled back (restore + publish + audit) by the sweep");
        report.note("warm-up: one unrecorded round of every level; each open runs on a fresh graph whose only history is "
                + "init; the stuck writes are set up outside the timed open");
        return report;
    }

    /** Leaves {@code count} sidecars, one per table, each from a write whose commit landed and could not undo itself. */
    private static void strand(BenchContext ctx, Path root, String queries, int count) {
        if (count == 0) {
            return;
        }
        StorageServices hiding = ctx.services().withObjectStores(HidePendingSidecars::new);
        for (int t = 0; t < count; t++) {
            // A fresh handle per stuck write: its open loads the (hidden, so empty) sidecar directory into the
            // process's view; a handle that had just stranded a sidecar would see it there and refuse the next write.
            Omnigraph writer = ctx.run(() -> Omnigraph.at(root).services(hiding).open(OpenMode.READ_WRITE));
            HandleInternals.of(writer).failpoints().arm("mutation.after_commit:1", new Failpoints.Action.Error());
            HandleInternals.of(writer).failpoints().arm("recovery.before_plan_write", new Failpoints.Action.Error());
            String query = "w" + t;
            Optional<Throwable> failure = ctx.run(() -> writer.mutate("main", queries, query, Map.of("n", "stuck"),
                            WriteOptions.DEFAULT)
                    .map(outcome -> Optional.<Throwable>empty())
                    .onErrorResume(e -> Mono.just(Optional.of(e))));
            if (failure.isEmpty() || !(failure.get() instanceof RecoveryRequired)) {
                throw new IllegalStateException("stuck write " + query + " did not leave its sidecar: " + failure);
            }
            writer.close();
        }
    }

    private static String label(int pending) {
        return "read-write open, " + pending + " pending sidecars";
    }

    /** The writer's view in this scenario: {@code __recovery/} lists as empty, so the barrier lets it through. */
    private record HidePendingSidecars(ObjectStore delegate) implements ObjectStore {
        @Override
        public Mono<List<String>> list(String prefix) {
            return prefix.startsWith("__recovery") ? Mono.just(List.of()) : delegate.list(prefix);
        }

        @Override
        public Mono<Void> put(String key, byte[] bytes) {
            return delegate.put(key, bytes);
        }

        @Override
        public Mono<Boolean> putIfAbsent(String key, byte[] bytes) {
            return delegate.putIfAbsent(key, bytes);
        }

        @Override
        public Mono<Optional<byte[]>> get(String key) {
            return delegate.get(key);
        }

        @Override
        public Mono<Boolean> delete(String key) {
            return delegate.delete(key);
        }

        @Override
        public Mono<Boolean> exists(String key) {
            return delegate.exists(key);
        }

        @Override
        public String rootUri() {
            return delegate.rootUri();
        }
    }
}
