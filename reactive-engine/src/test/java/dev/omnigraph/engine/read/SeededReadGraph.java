package dev.omnigraph.engine.read;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** Read tests on a fresh {@link ReadFixture} graph per test; closing the storage fails on leaked Arrow memory. */
abstract class SeededReadGraph {
    @TempDir
    Path dir;
    StorageServices services;
    Omnigraph graph;

    @BeforeEach
    final void seedGraph() {
        services = ReadFixture.services();
        graph = ReadFixture.graph(services, dir.resolve("g"));
    }

    @AfterEach
    final void closeStorage() {
        services.tables().close(); // fails on leaked Arrow memory, e.g. from a scan not closed on cancel
    }
}
