package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.internal.HandleInternals;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.StorageServices;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Child-JVM side of {@link OptimizeCrashTest}: opens read-write and optimizes, failpoints from the environment; with
 * a second argument, loads that NDJSON line instead with a minor compaction after every commit.
 */
public final class OptimizeCrashMain {
    public static void main(String[] args) {
        try (StorageServices services = StorageServices.create()) {
            Omnigraph graph = Omnigraph.open(services, Path.of(args[0]), OpenMode.READ_WRITE).block();
            try {
                if (args.length > 1) {
                    HandleInternals.of(graph).minorCompactionEvery(1);
                    OptimizeCrashTest.load(graph, args[1] + "\n");
                } else {
                    graph.optimize(Optional.empty()).block();
                }
            } catch (RuntimeException failed) {
                System.out.println("FAILED " + failed);
            }
            System.out.println("DONE");
        }
        System.exit(0);
    }
}
