package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.RawHttp;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.http.wire.Json;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Malformed percent-encoding is a counted 400; routing happens on raw segments, captures decoded afterwards. */
class RequestTargetTest extends EmptyGraphServer {
    @Test
    void badEncodingIs400AndShutdownDoesNotWaitForIt() throws Exception {
        // A grace period far longer than the test may take: shutdown finishing at all proves nothing was left counted.
        Duration grace = Duration.ofHours(1);
        http.start(OmnigraphServer.Config.of(dir).withLimits(ServerLimits.DEFAULT.withShutdownGrace(grace)));
        try (RawHttp c = RawHttp.connect(http.server.host(), http.server.port(), Duration.ofSeconds(30))) {
            for (String target : List.of("/graphs/g/snapshot?branch=%zz", "/graphs/g/snap%zzshot", "/graphs/g%/schema",
                    "/graphs/g/commits/%C3%28", "/healthz?x=%")) {
                RawHttp.Response r = c.exchange(RawHttp.request("GET", target, null, null));
                assertThat(r.status()).as(target + " " + r).isEqualTo(400);
                JsonNode body = Json.parse(r.body(), "response");
                assertThat(body.path("code").asText()).isEqualTo("bad_request");
                assertThat(body.path("error").asText()).contains("percent-encoding");
                assertThat(body.path("request_id").asText()).isEqualTo(r.header(Exchange.REQUEST_ID));
            }
        }
        http.server.shutdown().block(Duration.ofSeconds(60));
        assertThat(http.server.inFlight()).isZero();
    }

    @Test
    void anEncodedSlashIsDataNotASeparator() {
        http.start(dir);
        HttpFixture.Reply commit = http.get("/graphs/g/commits/%2F");
        assertThat(commit.status()).as(commit.toString()).isEqualTo(404);
        assertThat(commit.json().path("code").asText()).isEqualTo("not_found");
        assertThat(http.get("/graphs/g/commits%2F").status()).as("no route named 'commits/'").isEqualTo(404);
        assertThat(http.get("/graphs/g%2Fcommits").status()).as("no graph named 'g/commits'").isEqualTo(404);
        assertThat(http.get("/graphs/%67/commits").status()).as("a capture is decoded: %67 is g").isEqualTo(200);
        assertThat(http.get("/graphs/g/commits").json().path("commits")).hasSize(1);
    }

    @Test
    void segmentsDecodeStrictly() {
        assertThat(RequestTarget.decode("a%20b+c")).isEqualTo("a b+c");
        assertThat(RequestTarget.decode("%F0%9F%98%80")).isEqualTo("\uD83D\uDE00");
        for (String bad : List.of("%", "%4", "%zz", "%C3", "%FF")) {
            assertThatThrownBy(() -> RequestTarget.decode(bad)).as(bad).isInstanceOf(HttpProblem.class)
                    .hasMessageContaining(bad);
        }
        assertThat(RequestTarget.parse("/a//b/?q=1&q=2").rawSegments()).containsExactly("a", "b");
        assertThat(RequestTarget.parse("/a?q=1&q=2").query().get("q")).containsExactly("1", "2");
    }

    @Test
    void aFragmentIsNeitherPathNorQuery() {
        assertThat(RequestTarget.parse("/a?branch=dev#x").query().get("branch")).containsExactly("dev");
        RequestTarget noQuery = RequestTarget.parse("/a/b#branch=x");
        assertThat(noQuery.rawSegments()).containsExactly("a", "b");
        assertThat(noQuery.query()).isEmpty();
    }

    @Test
    void anUnsatisfiableRangeNeverStartsBeforeTheFirstByteAndSignsAreRefused() {
        assertThat(ByteRange.requested("bytes=-5", 0)).containsExactly(0, -1);
        assertThat(ByteRange.requested("bytes=-0", 10)).containsExactly(10, 9);
        assertThat(ByteRange.requested("bytes=-20", 10)).containsExactly(0, 9);
        assertThat(ByteRange.requested("bytes=20-", 10)).containsExactly(20, 9);
        for (String signed : List.of("bytes=--5", "bytes=-+5", "bytes=+1-2", "bytes=-")) {
            assertThatThrownBy(() -> ByteRange.parse(signed, 10)).as(signed).isInstanceOf(HttpProblem.class);
        }
    }
}
