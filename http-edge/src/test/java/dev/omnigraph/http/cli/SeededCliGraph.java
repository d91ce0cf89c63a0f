package dev.omnigraph.http.cli;

import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** CLI tests on a graph made through the CLI ({@link CliRun#seededGraph}) at {@code dir/graph}. */
abstract class SeededCliGraph {
    @TempDir
    Path dir;
    StorageServices services;
    Path root;

    @BeforeEach
    void seed() throws Exception {
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
        root = CliRun.seededGraph(services, dir);
    }

    /** The scheduler is shared by every test of this JVM: only the table storage is this test's to close. */
    @AfterEach
    void closeTables() {
        services.tables().close();
    }
}
