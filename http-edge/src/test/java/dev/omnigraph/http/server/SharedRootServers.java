package dev.omnigraph.http.server;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.internal.HandleInternals;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.wire.StoredQueries;
import dev.omnigraph.storage.RootLock;
import dev.omnigraph.storage.lease.LeaseSettings;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.storage.testing.S3TestServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;

/**
 * Two servers in this JVM on one {@code s3://} root of the loopback S3 server, each its own lease owner (as two
 * processes would be): the first to start holds the writer lease, the second follows.
 */
final class SharedRootServers implements AutoCloseable {
    final S3TestServer s3;
    final GraphRoot.S3 root;
    final HttpFixture holder = new HttpFixture();
    final HttpFixture follower = new HttpFixture();

    SharedRootServers(String prefix) throws Exception {
        s3 = S3TestServer.start();
        root = s3.root("shared", "graphs/" + prefix);
        Omnigraph seeded = Omnigraph.init(holder.services, root, HttpFixture.SCHEMA).block(Duration.ofSeconds(120));
        try {
            StoredQueries.add(HandleInternals.of(seeded).objectStore(), HttpFixture.QUERIES, seeded.catalog()).block();
        } finally {
            seeded.closeAsync().block();
        }
    }

    /** A lease owned by a pretend process {@code pid}, long enough never to expire in a test. */
    static LeaseSettings lease(long pid) {
        return LeaseSettings.of(Duration.ofHours(1)).ownedBy(new RootLock.Holder(pid, "server-" + pid, Instant.now()));
    }

    /** The config of a server on the shared root at {@code port}, advertising itself there. */
    OmnigraphServer.Config config(int port, long pid, ScaleOut scaleOut) {
        return OmnigraphServer.Config.of(root).withPort(port)
                .withScaleOut(scaleOut.advertising(url(port)).withLease(lease(pid)));
    }

    /** Starts the holder on a free port (it takes the lease), then the follower with {@code followerScaleOut}. */
    SharedRootServers start(ScaleOut followerScaleOut) throws IOException {
        holder.start(config(freePort(), 1, ScaleOut.DEFAULT));
        follower.start(config(freePort(), 2, followerScaleOut));
        return this;
    }

    static String url(int port) {
        return "http://127.0.0.1:" + port;
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() throws Exception {
        try {
            follower.close();
        } finally {
            try {
                holder.close();
            } finally {
                s3.close();
            }
        }
    }
}
