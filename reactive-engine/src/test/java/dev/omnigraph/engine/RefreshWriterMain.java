package dev.omnigraph.engine;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Child-JVM side of {@link RefreshTest}: another process evolves the schema, writes with the new property and
 * creates a branch, then exits.
 */
public final class RefreshWriterMain {
    public static void main(String[] args) {
        try (StorageServices services = StorageServices.create();
             Omnigraph graph = Omnigraph.open(services, Path.of(args[0]), OpenMode.READ_WRITE).block()) {
            graph.applySchema(RefreshTest.EVOLVED, false, Optional.empty()).block();
            graph.mutate("main", RefreshTest.QUERIES, "add", Map.of("name", "Ada", "nick", "A"), WriteOptions.DEFAULT).block();
            graph.createBranch("side", Optional.empty()).block();
            System.out.println("DONE");
        }
        System.exit(0);
    }
}
