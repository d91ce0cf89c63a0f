package dev.omnigraph.engine;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Child-JVM side of the schema-apply crash tests: opens the graph read-write and applies
 * {@link SchemaApplyCrashTest#TARGET} with the failpoints of {@code OMNIGRAPH_FAILPOINTS}; an {@code exit}
 * failpoint halts the JVM with 137.
 */
public final class SchemaApplyCrashMain {
    public static void main(String[] args) {
        try (StorageServices services = StorageServices.create()) {
            Omnigraph graph = Omnigraph.open(services, Path.of(args[0]), OpenMode.READ_WRITE).block();
            try {
                graph.applySchema(SchemaApplyCrashTest.TARGET, true, Optional.of("crash")).block();
            } catch (RuntimeException failed) {
                System.out.println("FAILED " + failed);
            }
            System.out.println("DONE");
        }
        System.exit(0);
    }
}
