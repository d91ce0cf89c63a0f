package dev.omnigraph.http.server;

import java.time.Duration;

/**
 * The bounds of one server: request sizes, how long a client may take to send a request and may sit idle, how many
 * connections may be open, and the graceful-shutdown wait.
 *
 * @param bodyBytes      largest JSON body (1 MiB)
 * @param loadBodyBytes  largest {@code /load} or {@code /load/ndjson} body (32 MiB)
 * @param shutdownGrace  how long shutdown waits for requests in flight (30 s)
 * @param readTimeout    a request's head must arrive within this of its first byte, and its body may pause no
 *                       longer than this (30 s)
 * @param idleTimeout    a connection with no request in progress is closed after this (60 s)
 * @param maxConnections open connections beyond this are answered 503 and closed (1,024)
 * @param maxUriBytes    longest request line (8 KiB): longer is a 414
 * @param maxHeaderBytes largest header block (16 KiB): larger is a 431
 */
public record ServerLimits(long bodyBytes, long loadBodyBytes, Duration shutdownGrace, Duration readTimeout,
                           Duration idleTimeout, int maxConnections, int maxUriBytes, int maxHeaderBytes) {
    public static final ServerLimits DEFAULT = new ServerLimits(1L << 20, 32L << 20, Duration.ofSeconds(30),
            Duration.ofSeconds(30), Duration.ofSeconds(60), 1024, 8 << 10, 16 << 10);

    public ServerLimits {
        if (bodyBytes < 1 || loadBodyBytes < 1 || shutdownGrace.isNegative() || !positive(readTimeout)
                || !positive(idleTimeout) || maxConnections < 1 || maxUriBytes < 64 || maxHeaderBytes < 64) {
            throw new IllegalArgumentException("server limits must be positive (URI and header limits at least 64 bytes)");
        }
    }

    private static boolean positive(Duration d) {
        return !d.isNegative() && !d.isZero();
    }

    public ServerLimits withLoadBodyBytes(long bytes) {
        return new ServerLimits(bodyBytes, bytes, shutdownGrace, readTimeout, idleTimeout, maxConnections, maxUriBytes,
                maxHeaderBytes);
    }

    public ServerLimits withShutdownGrace(Duration grace) {
        return new ServerLimits(bodyBytes, loadBodyBytes, grace, readTimeout, idleTimeout, maxConnections, maxUriBytes,
                maxHeaderBytes);
    }

    public ServerLimits withTimeouts(Duration read, Duration idle) {
        return new ServerLimits(bodyBytes, loadBodyBytes, shutdownGrace, read, idle, maxConnections, maxUriBytes,
                maxHeaderBytes);
    }

    public ServerLimits withMaxConnections(int connections) {
        return new ServerLimits(bodyBytes, loadBodyBytes, shutdownGrace, readTimeout, idleTimeout, connections,
                maxUriBytes, maxHeaderBytes);
    }

    public ServerLimits withHeadLimits(int uriBytes, int headerBytes) {
        return new ServerLimits(bodyBytes, loadBodyBytes, shutdownGrace, readTimeout, idleTimeout, maxConnections,
                uriBytes, headerBytes);
    }
}
