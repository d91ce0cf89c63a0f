package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.internal.HandleInternals;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.recovery.SidecarStore;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.error.RecoveryRequired;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import reactor.core.publisher.Mono;

/**
 * A graph with several pending sidecars, each left by a real write that failed and could not undo itself, on
 * disjoint tables, as concurrent writers that all armed before a crash would leave them. Each stuck write runs on
 * a fresh read-write handle while the sidecars left before it are parked outside {@code __recovery/}, so that
 * handle's open (which loads the directory into the process's view) and its barrier let it through; then all are
 * put back. In operation order:
 * <ol>
 *   <li>{@code a2}: inserts into A and E; both commits land, then it fails: rolled back (two restores);</li>
 *   <li>{@code b}: inserts into B and fails after confirming: the sweep rolls it forward;</li>
 *   <li>{@code c}: inserts into C; its commit lands, then it fails: rolled back;</li>
 *   <li>{@code d}: inserts into D and fails right after arming: nothing moved, finalized as rolled back.</li>
 * </ol>
 */
final class StrandedGraph {
    static final String SCHEMA = """
            node A { name: String @key }
            node B { name: String @key }
            node C { name: String @key }
            node D { name: String @key }
            node E { name: String @key }
            """;
    static final String QUERIES = """
            query a2() { insert A { name: "a" } insert E { name: "e" } }
            query b() { insert B { name: "b" } }
            query c() { insert C { name: "c" } }
            query d() { insert D { name: "d" } }
            """;
    static final int SIDECARS = 4;
    /** Tables the sweep restores (A, E and C). */
    static final int RESTORES = 3;

    private static final String NO_UNDO = "recovery.before_plan_write";
    private static final Failpoints.Action ERROR = new Failpoints.Action.Error();

    private StrandedGraph() {
    }

    /** Initialises {@code root} and leaves the four sidecars; every handle is closed afterwards. */
    static void build(StorageServices services, Path root) throws IOException {
        Omnigraph.init(services, root, SCHEMA).block().close();
        Path parked = Files.createDirectories(root.resolveSibling(root.getFileName() + "-parked-sidecars"));
        strand(services, root, parked, "a2", Map.of("mutation.after_commit:2", ERROR, NO_UNDO, ERROR));
        strand(services, root, parked, "b", Map.of("mutation." + FailpointCatalog.BEFORE_MANIFEST_COMMIT, ERROR, NO_UNDO, ERROR));
        strand(services, root, parked, "c", Map.of("mutation.after_commit:1", ERROR, NO_UNDO, ERROR));
        strand(services, root, parked, "d", Map.of("mutation." + FailpointCatalog.AFTER_ARM, ERROR,
                FailpointCatalog.AUDIT_RECORD, ERROR));
        move(parked, root.resolve(SidecarStore.DIRECTORY));
    }

    private static void move(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.list(from)) {
            for (Path file : files.toList()) {
                Files.move(file, to.resolve(file.getFileName()));
            }
        }
    }

    private static void strand(StorageServices services, Path root, Path parked, String query,
                               Map<String, Failpoints.Action> points) throws IOException {
        Omnigraph writer = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
        try {
            points.forEach(HandleInternals.of(writer).failpoints()::arm);
            Optional<Throwable> failure = writer.mutate("main", QUERIES, query, Map.of(), WriteOptions.DEFAULT)
                    .map(done -> Optional.<Throwable>empty())
                    .onErrorResume(error -> Mono.just(Optional.of(error)))
                    .block();
            if (failure.isEmpty() || !(failure.get() instanceof RecoveryRequired)) {
                throw new IllegalStateException("stuck write " + query + " did not leave its sidecar: " + failure);
            }
        } finally {
            writer.close();
        }
        move(root.resolve(SidecarStore.DIRECTORY), parked);
    }
}
