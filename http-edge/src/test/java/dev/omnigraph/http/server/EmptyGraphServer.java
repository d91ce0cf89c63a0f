package dev.omnigraph.http.server;

import dev.omnigraph.http.testing.HttpFixture;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** Server tests on one empty graph {@code g}: each test starts the server itself, with the config it is about. */
abstract class EmptyGraphServer {
    @TempDir
    Path dir;
    HttpFixture http;

    @BeforeEach
    void initEmptyGraph() {
        http = new HttpFixture();
        http.init(dir.resolve("g"));
    }

    @AfterEach
    void stopServer() {
        http.close();
    }
}
