package dev.omnigraph.engine;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Child-JVM side of the schema-apply crash tests: opens the graph read-write and applies
 * {@link SchemaApplyCrashTest#TARGET} with the failpoints of {@code OMNIGRAPH_FAILPOINTS}; an {@code exit}
 * failpoint halts the JVM with 137. With a second argument {@code open} it only opens the graph read-write (the
 * open's schema-apply recovery meets the failpoints).
 */
public final class SchemaApplyCrashMain {
    public static void main(String[] args) {
        try (StorageServices services = StorageServices.create()) {
            Omnigraph graph;
            try {
                // "open": only the read-write open, whose schema-apply recovery runs with the armed failpoints.
                graph = Omnigraph.open(services, Path.of(args[0]), OpenMode.READ_WRITE).block();
            } catch (RuntimeException failed) {
                System.out.println("FAILED " + failed);
                System.exit(0);
                return;
            }
            if (args.length > 1 && args[1].equals("open")) {
                System.out.println("DONE");
                System.exit(0);
            }
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
