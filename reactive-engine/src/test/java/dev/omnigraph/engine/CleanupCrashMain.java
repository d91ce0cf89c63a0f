package dev.omnigraph.engine;

import dev.omnigraph.engine.cleanup.CleanupOptions;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Child-JVM side of {@link CleanupCrashTest}: opens the graph read-write and runs {@code cleanup --keep 1 --confirm}
 * with failpoints armed from {@code OMNIGRAPH_FAILPOINTS} ({@code exit} halts with 137).
 */
public final class CleanupCrashMain {
    public static void main(String[] args) {
        try (StorageServices services = StorageServices.create()) {
            Omnigraph graph = Omnigraph.open(services, Path.of(args[0]), OpenMode.READ_WRITE).block();
            try {
                graph.cleanup(CleanupOptions.of(OptionalInt.of(1), Optional.empty(), true)).block();
            } catch (RuntimeException failed) {
                System.out.println("FAILED " + failed);
            }
            System.out.println("DONE");
        }
        System.exit(0);
    }
}
