package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.http.testing.RawHttp;
import dev.omnigraph.http.wire.Json;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * 1,500 idle connections against the default cap of 1,024: liveness and metrics probes are still answered on the
 * main address (past the cap, one probe per connection) and on the separate metrics address; anything else past
 * the cap is a JSON 503. Over real sockets; waits are on the server's connection count, never sleeps.
 */
class ConnectionFloodTest extends EmptyGraphServer {
    private static final int FLOOD = 1_500;
    private static final Duration GENEROUS = Duration.ofSeconds(60);

    @Test
    void healthAndMetricsAreAnsweredUnderAnIdleConnectionFlood() throws Exception {
        http.start(OmnigraphServer.Config.of(dir)
                .withLimits(ServerLimits.DEFAULT.withTimeouts(Duration.ofSeconds(20), Duration.ofMinutes(5)))
                .withOpenMetrics(InetSocketAddress.createUnresolved("127.0.0.1", 0)));
        assertThat(http.server.openMetricsPort()).isPresent();
        List<RawHttp> flood = new ArrayList<>();
        try {
            for (int i = 0; i < FLOOD; i++) {
                flood.add(RawHttp.connect(http.server.host(), http.server.port(), GENEROUS));
            }
            Mono.fromCallable(() -> http.server.openConnections()).repeat().takeUntil(n -> n >= FLOOD)
                    .timeout(GENEROUS).blockLast();
            assertThat(http.server.openConnections()).isGreaterThan(ServerLimits.DEFAULT.maxConnections());

            try (RawHttp probe = RawHttp.connect(http.server.host(), http.server.port(), GENEROUS)) {
                RawHttp.Response health = probe.exchange(RawHttp.request("GET", "/healthz", null, null));
                assertThat(health.status()).as(health.toString()).isEqualTo(200);
                assertThat(Json.parse(health.body(), "health").path("status").asText()).isEqualTo("ok");
                assertThat(probe.awaitClosed()).as("a probe past the cap gives its slot back").isTrue();
            }
            try (RawHttp probe = RawHttp.connect(http.server.host(), http.server.port(), GENEROUS)) {
                RawHttp.Response metrics = probe.exchange(RawHttp.request("GET", "/metrics", null, null));
                assertThat(metrics.status()).isEqualTo(200);
                assertThat(metrics.body()).contains("# TYPE jvm_");
            }
            try (RawHttp other = RawHttp.connect(http.server.host(), http.server.port(), GENEROUS)) {
                RawHttp.Response refused = other.exchange(RawHttp.request("GET", "/graphs", null, null));
                assertThat(refused.status()).isEqualTo(503);
                assertThat(Json.parse(refused.body(), "r").path("code").asText()).isEqualTo("too_many_requests");
            }
            try (RawHttp separate = RawHttp.connect("127.0.0.1", http.server.openMetricsPort().get(), GENEROUS)) {
                assertThat(separate.exchange(RawHttp.request("GET", "/healthz", null, null)).status()).isEqualTo(200);
            }
        } finally {
            for (RawHttp c : flood) c.close();
        }
    }

    @Test
    void aConnectionPastTheCapThatSendsNothingIsClosedAfterTheReadTimeout() throws Exception {
        http.start(OmnigraphServer.Config.of(dir).withLimits(ServerLimits.DEFAULT.withMaxConnections(1)
                .withTimeouts(Duration.ofMillis(300), Duration.ofMinutes(5))));
        try (RawHttp held = RawHttp.connect(http.server.host(), http.server.port(), GENEROUS)) {
            // Served first, so this one holds the only slot before the second connects.
            assertThat(held.exchange(RawHttp.request("GET", "/graphs", null, null)).status()).isEqualTo(200);
            try (RawHttp silent = RawHttp.connect(http.server.host(), http.server.port(), GENEROUS)) {
                assertThat(silent.awaitClosed()).as("closed although the idle timeout is long").isTrue();
            }
            assertThat(held.exchange(RawHttp.request("GET", "/graphs", null, null)).status()).isEqualTo(200);
        }
    }
}
