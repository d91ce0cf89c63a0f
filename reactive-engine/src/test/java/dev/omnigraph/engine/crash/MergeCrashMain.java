package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import java.nio.file.Path;

/**
 * Child-JVM side of the merge crash cases: opens the graph read-write and runs one {@link MergeCrashTest.Action}
 * with failpoints armed from {@code OMNIGRAPH_FAILPOINTS} ({@code exit} halts with 137).
 */
public final class MergeCrashMain {
    public static void main(String[] args) {
        Path root = Path.of(args[0]);
        try (StorageServices services = StorageServices.create()) {
            Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
            try {
                MergeCrashTest.Action.valueOf(args[1]).run(graph).block();
            } catch (RuntimeException failed) {
                System.out.println("FAILED " + failed);
            }
            System.out.println("DONE");
        }
        System.exit(0);
    }
}
