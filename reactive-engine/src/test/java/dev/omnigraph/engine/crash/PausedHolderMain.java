package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.internal.HandleInternals;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.root.GraphRoot;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Child JVM of {@link S3PausedHolderTest}: the writer that pauses. Opens {@code args[0]} read-write (taking the
 * lease), starts an {@link CrashScenario#INSERT} parked at failpoint {@code args[1]}, prints {@code PARKED} and
 * waits for a line on stdin (the parent has taken the lease over meanwhile), then lets the write run on as a
 * process that does not know it lost its lease, and prints how it ended.
 */
public final class PausedHolderMain {
    public static void main(String[] args) throws Exception {
        GraphRoot root = GraphRoot.parse(args[0]);
        try (StorageServices services = StorageServices.create()) {
            Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
            Failpoints.Parked parked = HandleInternals.of(graph).failpoints().park(args[1]);
            CompletableFuture<?> write = CrashScenario.INSERT.run(graph).toFuture();
            parked.reached().block();
            System.out.println("PARKED");
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            parked.release();
            try {
                write.get();
                System.out.println("WROTE");
            } catch (ExecutionException failed) {
                System.out.println("FAILED " + failed.getCause());
            }
        }
        System.out.println("DONE");
        System.out.flush();
        Runtime.getRuntime().halt(0); // no close: a paused holder never gives its lease back
    }
}
