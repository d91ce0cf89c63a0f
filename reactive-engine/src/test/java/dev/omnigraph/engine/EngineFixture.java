package dev.omnigraph.engine;

import dev.omnigraph.storage.CountingTableStorage;
import dev.omnigraph.storage.StorageCallCounter;
import dev.omnigraph.storage.testing.StorageFixture;

/** Storage services for engine tests: the JVM-wide test scheduler and a fresh, leak-checked table storage. */
final class EngineFixture {
    static final String SOCIAL = """
            // a small social graph
            node Person {
                name: String @key
                age: I32?
            }
            node Company {
                name: String @key
            }
            edge Knows: Person -> Person
            edge WorksAt: Person -> Company @card(0..1) {
                since: Date?
            }
            """;

    private EngineFixture() {
    }

    static StorageServices services() {
        return new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
    }

    /** As {@link #services()}, with every table-storage call counted by {@code counter}. */
    static StorageServices countingServices(StorageCallCounter counter) {
        return new StorageServices(StorageFixture.scheduler(), new CountingTableStorage(StorageFixture.newTableStorage(), counter));
    }

    /** Closes only the table storage (its allocator check catches leaks); the scheduler is shared. */
    static void close(StorageServices services) {
        services.tables().close();
    }
}
