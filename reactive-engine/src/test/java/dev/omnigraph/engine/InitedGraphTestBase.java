package dev.omnigraph.engine;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Engine tests on a graph {@code g} initialised per test with the subclass's {@link #schema()} on fresh storage
 * services. A subclass's own {@code @BeforeEach} (seeding) runs after the init; its own {@code @AfterEach} (checks
 * on the graph) runs before the services are closed, which fails the test on leaked Arrow memory.
 */
abstract class InitedGraphTestBase {
    @TempDir
    Path dir;
    StorageServices services;
    Omnigraph graph;

    /** The {@code .pg} source the graph is initialised with. */
    abstract String schema();

    @BeforeEach
    final void initGraph() {
        services = EngineFixture.services();
        graph = Omnigraph.init(services, dir.resolve("g"), schema()).block();
    }

    @AfterEach
    final void closeServices() {
        EngineFixture.close(services);
    }
}
