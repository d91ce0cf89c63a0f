package dev.omnigraph.storage.lease;

import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.root.S3ObjectStore;
import dev.omnigraph.storage.testing.S3TestServer;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Every lease case of {@link WriterLeaseTest} with the lease object on a real S3-compatible server: taking it is an
 * {@code If-None-Match: *} PUT, renewing, taking over and releasing an {@code If-Match} PUT on the ETag read.
 */
class S3WriterLeaseTest extends WriterLeaseTest {
    private static final AtomicInteger ROOTS = new AtomicInteger();
    private static S3TestServer server;

    @BeforeAll
    static void startServer() throws Exception {
        server = S3TestServer.start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @Override
    ObjectStore store() {
        S3ObjectStore store = new S3ObjectStore(server.root("leases", "root-" + ROOTS.incrementAndGet()), scheduler);
        store.requireConditionalWrites().block();
        return store;
    }
}
