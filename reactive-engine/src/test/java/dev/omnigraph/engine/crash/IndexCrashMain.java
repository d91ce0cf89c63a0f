package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Child-JVM side of {@link IndexCrashTest}: opens the graph read-write (running recovery) and, unless the second
 * argument is {@code open}, runs {@code index ensure} on that branch, with the failpoints of
 * {@code OMNIGRAPH_FAILPOINTS}; an {@code exit} failpoint halts the JVM with 137.
 */
public final class IndexCrashMain {
    public static void main(String[] args) {
        try (StorageServices services = StorageServices.create()) {
            Omnigraph graph = Omnigraph.open(services, Path.of(args[0]), OpenMode.READ_WRITE).block();
            try {
                if (!args[1].equals("open")) {
                    graph.ensureIndexes(args[1], Optional.of("crash")).block();
                }
            } catch (RuntimeException failed) {
                System.out.println("FAILED " + failed);
            }
            System.out.println("DONE");
        }
        System.exit(0);
    }
}
