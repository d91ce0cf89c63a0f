package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.http.testing.RawHttp;
import dev.omnigraph.http.wire.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The server's connection limits over raw sockets: idle and half-sent connections are closed after their
 * (short, configured) timeouts, connections past the cap are refused with a JSON 503, and oversize request lines,
 * headers and bodies get JSON 414/431/413. Closes are awaited (a read returning end-of-stream within a generous
 * socket timeout), never slept for.
 */
class ServerLimitsTest extends EmptyGraphServer {
    private static final Duration SHORT = Duration.ofMillis(400);
    private static final Duration LONG = Duration.ofMinutes(5);
    private static final Duration GENEROUS = Duration.ofSeconds(30);

    private RawHttp connect() throws Exception {
        return RawHttp.connect(http.server.host(), http.server.port(), GENEROUS);
    }

    @Test
    void aConnectionThatNeverSendsIsClosedAfterTheIdleTimeout() throws Exception {
        http.start(OmnigraphServer.Config.of(dir).withLimits(ServerLimits.DEFAULT.withTimeouts(LONG, SHORT)));
        try (RawHttp silent = connect()) {
            assertThat(silent.awaitClosed()).as("closed before the %s socket timeout", GENEROUS).isTrue();
        }
        try (RawHttp afterOne = connect()) {
            assertThat(afterOne.exchange(RawHttp.request("GET", "/healthz", null, null)).status()).isEqualTo(200);
            assertThat(afterOne.awaitClosed()).as("idle keep-alive connection closed").isTrue();
        }
    }

    @Test
    void aHalfSentRequestHeadIsClosedAfterTheReadTimeout() throws Exception {
        http.start(OmnigraphServer.Config.of(dir).withLimits(ServerLimits.DEFAULT.withTimeouts(SHORT, LONG)));
        try (RawHttp stalled = connect()) {
            stalled.write("GET /graphs/g/snapshot HTTP/1.1\r\nHost: localhost\r\nX-Half: ");
            assertThat(stalled.awaitClosed()).as("half-sent head closed although the idle timeout is long").isTrue();
        }
        try (RawHttp stalledBody = connect()) {
            stalledBody.write("POST /graphs/g/mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 100\r\n\r\n{\"query\":");
            assertThat(stalledBody.awaitClosed()).as("stalled body closed").isTrue();
        }
        try (RawHttp prompt = connect()) {
            assertThat(prompt.exchange(RawHttp.request("GET", "/healthz", null, null)).status())
                    .as("a whole request is still served").isEqualTo(200);
        }
    }

    @Test
    void connectionsPastTheCapAreRefusedWithAJson503() throws Exception {
        http.start(OmnigraphServer.Config.of(dir).withLimits(ServerLimits.DEFAULT.withMaxConnections(2)));
        List<RawHttp> held = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                RawHttp c = connect();
                held.add(c);
                assertThat(c.exchange(RawHttp.request("GET", "/healthz", null, null)).status()).isEqualTo(200);
            }
            try (RawHttp refused = connect()) {
                // Answered once its head arrives (a probe would be served instead; see ConnectionFloodTest).
                RawHttp.Response r = refused.exchange(RawHttp.request("GET", "/graphs", null, null));
                assertThat(r.status()).isEqualTo(503);
                assertThat(r.header("Retry-After")).isEqualTo("1");
                JsonNode body = Json.parse(r.body(), "response");
                assertThat(body.path("code").asText()).isEqualTo("too_many_requests");
                assertThat(body.path("request_id").asText()).isEqualTo(r.header(Exchange.REQUEST_ID));
                assertThat(refused.awaitClosed()).isTrue();
            }
            assertThat(held.get(0).exchange(RawHttp.request("GET", "/healthz", null, null)).status())
                    .as("the connections within the cap are unaffected").isEqualTo(200);
            held.remove(0).close();
            Mono.fromCallable(() -> http.server.openConnections()).repeat().takeUntil(n -> n < 2)
                    .timeout(GENEROUS).blockLast();
            try (RawHttp again = connect()) {
                assertThat(again.exchange(RawHttp.request("GET", "/healthz", null, null)).status())
                        .as("a freed slot is usable").isEqualTo(200);
            }
        } finally {
            for (RawHttp c : held) c.close();
        }
    }

    @Test
    void oversizeLinesHeadersAndBodiesGetJsonBodies() throws Exception {
        http.start(dir);
        String longUrl = "/graphs/g/snapshot?branch=" + "a".repeat(64 << 10);
        try (RawHttp c = connect()) {
            RawHttp.Response r = c.exchange(RawHttp.request("GET", longUrl, null, null));
            assertThat(r.status()).isEqualTo(414);
            assertThat(Json.parse(r.body(), "response").path("error").asText()).contains("request line");
            assertThat(c.awaitClosed()).isTrue();
        }
        try (RawHttp c = connect()) {
            RawHttp.Response r = c.exchange("GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: " + "b".repeat(64 << 10)
                    + "\r\n\r\n");
            assertThat(r.status()).isEqualTo(431);
            assertThat(Json.parse(r.body(), "response").path("code").asText()).isEqualTo("bad_request");
            assertThat(c.awaitClosed()).isTrue();
        }
        try (RawHttp c = connect()) {
            RawHttp.Response r = c.exchange("POST /graphs/g/mutate HTTP/1.1\r\nHost: localhost\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 5000000\r\n\r\n{");
            assertThat(r.status()).isEqualTo(413);
            assertThat(Json.parse(r.body(), "response").path("resource_limit").path("limit").asLong()).isEqualTo(1L << 20);
        }
    }
}
