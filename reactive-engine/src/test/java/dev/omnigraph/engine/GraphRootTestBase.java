package dev.omnigraph.engine;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The set-up of tests that init and open graphs themselves: fresh storage services per test (leak-checked on
 * close) and a graph root path in a temp directory, not yet created. A subclass's own {@code @BeforeEach} runs
 * after this one.
 */
abstract class GraphRootTestBase {
    @TempDir
    Path dir;
    StorageServices services;
    Path root;

    @BeforeEach
    final void openServices() {
        services = EngineFixture.services();
        root = dir.resolve("graph");
    }

    @AfterEach
    final void closeServices() {
        EngineFixture.close(services);
    }
}
