package dev.omnigraph.http.server;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Request ids of one server: a random prefix per server start and a sequence, e.g. {@code 3f9a1c0e-42}. Unique
 * within a server's log and across restarts; they reveal nothing but the order of requests.
 */
final class RequestIds {
    private final String prefix;
    private final AtomicLong sequence = new AtomicLong();

    RequestIds() {
        byte[] random = new byte[4];
        new SecureRandom().nextBytes(random);
        prefix = HexFormat.of().formatHex(random);
    }

    String next() {
        return prefix + "-" + sequence.incrementAndGet();
    }
}
