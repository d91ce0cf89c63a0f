package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.RawHttp;
import dev.omnigraph.http.wire.Json;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTP/1.1 keep-alive over raw sockets: after every kind of response that does not reach storage, the next request
 * on the same connection that does reach storage is answered, every time. Each read is bounded by the socket
 * timeout, so a lost request fails the test instead of hanging it.
 */
class KeepAliveTest {
    private static final int ROUNDS = 60;
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(15);

    @TempDir
    Path dir;
    HttpFixture http;

    @BeforeEach
    void setUp() {
        http = new HttpFixture();
        http.init(dir.resolve("g"));
        http.start(dir);
        assertThat(http.postJson("/graphs/g/load", Json.object().put("data", HttpFixture.PEOPLE)).status()).isEqualTo(200);
    }

    @AfterEach
    void tearDown() {
        http.close();
    }

    record Kind(String name, String request, int status) {
    }

    /** Every response kind that never reaches storage, and two that do, each followed on its connection. */
    static List<Kind> kinds() {
        return List.of(
                new Kind("bad branch name", RawHttp.request("GET", "/graphs/g/snapshot?branch=bad..name", null, null), 400),
                new Kind("bad encoding", RawHttp.request("GET", "/graphs/g/snapshot?branch=%zz", null, null), 400),
                new Kind("no route", RawHttp.request("GET", "/graphs/g/nothing", null, null), 404),
                new Kind("no graph route", RawHttp.request("GET", "/nothing", null, null), 404),
                new Kind("method", RawHttp.request("GET", "/graphs/g/mutate", null, null), 405),
                new Kind("media type", RawHttp.request("POST", "/graphs/g/mutate", "text/plain", "query=x"), 415),
                new Kind("media type ndjson", RawHttp.request("POST", "/graphs/g/load/ndjson", "application/json", "{}"), 415),
                new Kind("malformed json", RawHttp.request("POST", "/graphs/g/mutate", "application/json", "{oops"), 400),
                new Kind("schema", RawHttp.request("GET", "/graphs/g/schema", null, null), 200),
                new Kind("health", RawHttp.request("GET", "/healthz", null, null), 200),
                new Kind("snapshot", SNAPSHOT, 200),
                new Kind("query", QUERY, 200));
    }

    static final String SNAPSHOT = RawHttp.request("GET", "/graphs/g/snapshot", null, null);
    static final String QUERY = RawHttp.request("POST", "/graphs/g/query", "application/json",
            Json.text(Json.object().put("query", HttpFixture.QUERIES).put("name", "people")));

    @Test
    void everyResponseKindIsFollowedByAnAnsweredStorageRequest() throws Exception {
        for (Kind kind : kinds()) {
            try (RawHttp connection = RawHttp.connect(http.server.host(), http.server.port(), READ_TIMEOUT)) {
                for (int round = 0; round < ROUNDS; round++) {
                    String at = kind.name() + ", round " + round;
                    RawHttp.Response first = connection.exchange(kind.request());
                    assertThat(first.status()).as(at + ": " + first).isEqualTo(kind.status());
                    RawHttp.Response next = answered(connection, round % 2 == 0 ? SNAPSHOT : QUERY, at);
                    assertThat(next.status()).as(at + ": " + next).isEqualTo(200);
                }
            }
        }
    }

    /** Pipelined: both requests in one write, before either answer; both answered, in order. */
    @Test
    void pipelinedPairsAreBothAnswered() throws Exception {
        for (Kind kind : kinds()) {
            try (RawHttp connection = RawHttp.connect(http.server.host(), http.server.port(), READ_TIMEOUT)) {
                for (int round = 0; round < ROUNDS / 6; round++) {
                    String at = kind.name() + ", pipelined round " + round;
                    connection.write(SNAPSHOT + kind.request() + SNAPSHOT);
                    assertThat(answered(connection, null, at).status()).as(at).isEqualTo(200);
                    assertThat(answered(connection, null, at).status()).as(at).isEqualTo(kind.status());
                    assertThat(answered(connection, null, at).status()).as(at).isEqualTo(200);
                }
            }
        }
    }

    /** Sends {@code request} (unless null) and reads its answer; a timeout names where it was lost. */
    private static RawHttp.Response answered(RawHttp connection, String request, String at) throws Exception {
        try {
            return request == null ? connection.read() : connection.exchange(request);
        } catch (SocketTimeoutException lost) {
            throw new AssertionError("no answer within " + READ_TIMEOUT + " after " + at, lost);
        }
    }
}
