package dev.omnigraph.storage.manifest;

import dev.omnigraph.storage.LanceTableStorage;
import dev.omnigraph.storage.StorageScheduler;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.OmnigraphException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Child-JVM side of the cross-process publisher race: warms Lance up, waits for the start byte on stdin, then publishes
 * one commit expecting the given head and prints LANDED or CONFLICT.
 */
public final class PublishRaceMain {
    public static void main(String[] args) throws Exception {
        String root = args[0];
        String expectedHead = args[1];
        try (StorageScheduler scheduler = StorageScheduler.create(2, 100);
             LanceTableStorage tables = new LanceTableStorage(scheduler)) {
            ManifestStore store = new ManifestStore(root, tables);
            ManifestBatchPublisher publisher = new ManifestBatchPublisher(store);
            store.load("main").block(); // pay the native-library load before the race starts
            System.out.println("READY");
            System.out.flush();
            // Blocks until the parent writes the start byte to every child, so both publish at once.
            if (System.in.read() < 0) {
                throw new IllegalStateException("the parent closed stdin before the start signal");
            }
            PublishRequest request = new PublishRequest("main", ExpectedHead.exactly(expectedHead), Optional.empty(),
                    Map.of(ManifestFixture.PERSON.tableKey(), ManifestFixture.PERSON.version()),
                    List.of(ManifestFixture.PERSON.pinnedAt(ManifestFixture.PERSON.version() + 1, Optional.empty(), 1)),
                    Ulid.next(), Optional.empty(), Optional.of("child"), System.currentTimeMillis() * 1000, "mutation");
            try {
                GraphCommit landed = publisher.publish(request).block();
                System.out.println("LANDED " + landed.id());
            } catch (OmnigraphException refused) {
                System.out.println("CONFLICT " + refused.code().wireName());
            }
        }
    }
}
