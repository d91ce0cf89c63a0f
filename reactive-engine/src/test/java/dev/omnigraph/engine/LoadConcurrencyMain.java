package dev.omnigraph.engine;

import java.nio.file.Path;

/** Child JVM of {@link LoadConcurrencyTest}: opens the graph at {@code args[0]} read-write and reports how it went. */
public final class LoadConcurrencyMain {
    public static void main(String[] args) {
        try (StorageServices services = StorageServices.create()) {
            try (Omnigraph graph = Omnigraph.open(services, Path.of(args[0]), OpenMode.READ_WRITE).block()) {
                System.out.println("OPENED");
            } catch (RuntimeException refused) {
                System.out.println("REFUSED " + refused.getClass().getSimpleName() + ": " + refused.getMessage());
            }
        }
        System.exit(0);
    }
}
