package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Engine tests on a fresh graph of {@link GraphTestSupport#CONSTRAINED} at {@code dir/g}. After each test no gate
 * may still be held (a writer that leaked its permit would block every later write), and the table storage is
 * closed, which fails loudly on a leaked Arrow buffer.
 */
abstract class ConstrainedGraphTest {
    @TempDir
    Path dir;
    StorageServices services;
    Omnigraph graph;

    @BeforeEach
    void initGraph() {
        services = newServices();
        graph = Omnigraph.init(services, dir.resolve("g"), GraphTestSupport.CONSTRAINED).block();
    }

    /** The storage services the graph is opened with (a subclass may count their calls). */
    StorageServices newServices() {
        return EngineFixture.services();
    }

    @AfterEach
    void checkGatesAndClose() {
        assertThat(graph.gates().allIdle()).as("no gate left held").isTrue();
        EngineFixture.close(services);
    }
}
