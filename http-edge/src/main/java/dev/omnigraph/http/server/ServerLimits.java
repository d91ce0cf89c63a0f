package dev.omnigraph.http.server;

import java.time.Duration;

/** Request-size limits and the graceful-shutdown bound of one server. */
public record ServerLimits(long bodyBytes, long loadBodyBytes, Duration shutdownGrace) {
    public static final ServerLimits DEFAULT = new ServerLimits(1L << 20, 32L << 20, Duration.ofSeconds(30));

    public ServerLimits {
        if (bodyBytes < 1 || loadBodyBytes < 1 || shutdownGrace.isNegative()) {
            throw new IllegalArgumentException("server limits must be positive");
        }
    }

    public ServerLimits withLoadBodyBytes(long bytes) {
        return new ServerLimits(bodyBytes, bytes, shutdownGrace);
    }

    public ServerLimits withShutdownGrace(Duration grace) {
        return new ServerLimits(bodyBytes, loadBodyBytes, grace);
    }
}
