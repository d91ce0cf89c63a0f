package dev.omnigraph.http.server;

import dev.omnigraph.engine.internal.HandleInternals;
import static dev.omnigraph.http.testing.HttpFixture.PEOPLE;
import static dev.omnigraph.http.testing.HttpFixture.mutation;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import io.netty.handler.codec.http.HttpMethod;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code Idempotency-Key} over real HTTP on every write route: replays, 422 on reuse, 400 on bad keys, disconnects. */
class IdempotencyRoutesTest {
    static final String KEY = "Idempotency-Key";

    @TempDir
    Path dir;
    HttpFixture http;
    Omnigraph graph;

    @BeforeEach
    void setUp() {
        http = new HttpFixture();
        graph = http.init(dir.resolve("g"));
        http.start(dir);
    }

    @AfterEach
    void tearDown() {
        http.close();
    }

    Reply post(String route, String body, Map<String, String> headers) {
        Map<String, String> all = new java.util.HashMap<>(headers);
        all.putIfAbsent("Content-Type", "application/json");
        return http.send(HttpMethod.POST, "/graphs/g/" + route, all, HttpFixture.text(body));
    }

    int commits() {
        return graph.commits("main").collectList().block(Duration.ofSeconds(60)).size();
    }

    String head() {
        return graph.snapshot(dev.omnigraph.engine.ReadTarget.main()).block(Duration.ofSeconds(60)).graphCommitId().orElseThrow();
    }

    /** Sends {@code body} twice with one key: one commit, the same body twice, the second marked as a replay. */
    void writesOnce(String route, String body, Map<String, String> headers) {
        int before = commits();
        Reply first = post(route, body, headers);
        Reply second = post(route, body, headers);
        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        assertThat(second.status()).as(second.toString()).isEqualTo(200);
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(first.headers().get(WriteRoutes.IDEMPOTENT_REPLAYED)).isNull();
        assertThat(second.headers().get(WriteRoutes.IDEMPOTENT_REPLAYED)).isEqualTo("true");
        assertThat(commits()).as(route).isEqualTo(before + 1);
    }

    @Test
    void everyWriteRouteWritesOncePerKey() {
        writesOnce("mutate", Json.text(mutation("addPerson", "{\"name\":\"Ada\"}")), Map.of(KEY, "m-1"));
        writesOnce("change", Json.text(mutation("addPerson", "{\"name\":\"Bob\"}")), Map.of(KEY, "c-1"));
        writesOnce("mutate/if-graph-commit", Json.text(mutation("setAge", "{\"name\":\"Ada\",\"age\":3}")),
                Map.of(KEY, "i-1", WriteRoutes.IF_GRAPH_COMMIT, head()));
        writesOnce("load", Json.text(Json.object().put("data", PEOPLE).put("mode", "merge")), Map.of(KEY, "l-1"));
        writesOnce("load/ndjson?mode=merge", "{\"type\":\"Person\",\"data\":{\"name\":\"Cy\"}}\n",
                Map.of(KEY, "n-1", "Content-Type", "application/x-ndjson"));
    }

    @Test
    void aKeyReusedForAnotherRequestIs422AndWritesNothing() {
        Reply first = post("mutate", Json.text(mutation("addPerson", "{\"name\":\"Ada\"}")), Map.of(KEY, "k"));
        String commit = first.json().path("commit").path("graph_commit_id").asText();
        int before = commits();

        for (Reply reused : List.of(
                post("mutate", Json.text(mutation("addPerson", "{\"name\":\"Eve\"}")), Map.of(KEY, "k")),
                post("load", Json.text(Json.object().put("data", PEOPLE).put("mode", "merge")), Map.of(KEY, "k")),
                post("load/ndjson", PEOPLE, Map.of(KEY, "k", "Content-Type", "application/x-ndjson")))) {
            assertThat(reused.status()).as(reused.toString()).isEqualTo(422);
            JsonNode body = reused.json();
            assertThat(body.path("code").asText()).isEqualTo("conflict");
            assertThat(body.path("error").asText()).contains("idempotency key 'k'").contains(commit);
            assertThat(body.path("idempotency_key_reused").path("key").asText()).isEqualTo("k");
            assertThat(body.path("idempotency_key_reused").path("graph_commit_id").asText()).isEqualTo(commit);
        }
        assertThat(commits()).isEqualTo(before);
    }

    @Test
    void badKeysAre400() throws Exception {
        String body = Json.text(mutation("addPerson", "{\"name\":\"Ada\"}"));
        for (String bad : List.of("", "x".repeat(256))) {
            Reply reply = post("mutate", body, Map.of(KEY, bad));
            assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
            assertThat(reply.json().path("error").asText()).contains(KEY);
        }
        Reply twice = http.client().headers(h -> h.add(KEY, "a").add(KEY, "b").set("Content-Type", "application/json"))
                .post().uri("/graphs/g/mutate").send(HttpFixture.text(body))
                .responseSingle((response, content) -> content.asString().map(text ->
                        new Reply(response.status().code(), response.responseHeaders(), text)))
                .block(Duration.ofSeconds(60));
        assertThat(twice.status()).as(twice.toString()).isEqualTo(400);
        assertThat(rawStatus(requestWithKey("caf\u00e9"))).as("non-ASCII key").isEqualTo(400);
        assertThat(commits()).isEqualTo(1);
    }

    /**
     * The first client sends its write and hangs up while the write is under way; the retry (same key, same body)
     * answers that write's commit when it landed, or runs itself when the hang-up stopped it before any effect.
     * Either way the graph has exactly one new commit and one new edge.
     */
    @Test
    void aRetryAfterTheFirstClientHungUpWritesOnce() throws Exception {
        http.postJson("/graphs/g/load", Json.object().put("data", PEOPLE).put("mode", "append"));
        int before = commits();
        // An id-less edge: without the key, a retry would insert a second one.
        String body = Json.text(mutation("knows", "{\"a\":\"Bob\",\"b\":\"Ada\"}"));
        Permit held = HandleInternals.of(graph).gates().forWrite("main", new TreeSet<>(List.of("edge:Knows"))).block(Duration.ofSeconds(60));
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), URI.create(http.server.baseUrl()).getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(request("POST", "/graphs/g/mutate", Map.of(KEY, "hang-up"), body));
            out.flush();
            HandleInternals.of(graph).idempotencyIndex().whenClaimed("hang-up").block(Duration.ofSeconds(60));
        } finally {
            held.release();
        }
        Reply retry = post("mutate", body, Map.of(KEY, "hang-up"));

        assertThat(retry.status()).as(retry.toString()).isEqualTo(200);
        List<String> ids = graph.commits("main").map(c -> c.id()).collectList().block(Duration.ofSeconds(60));
        assertThat(ids).hasSize(before + 1);
        assertThat(retry.json().path("commit").path("graph_commit_id").asText()).isEqualTo(ids.get(0));
        Reply again = post("mutate", body, Map.of(KEY, "hang-up"));
        assertThat(again.body()).isEqualTo(retry.body());
        assertThat(again.headers().get(WriteRoutes.IDEMPOTENT_REPLAYED)).isEqualTo("true");
    }

    private byte[] requestWithKey(String key) {
        return request("POST", "/graphs/g/mutate", Map.of(KEY, key), Json.text(mutation("addPerson", "{\"name\":\"Ada\"}")));
    }

    private static byte[] request(String method, String path, Map<String, String> headers, String body) {
        byte[] content = body.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: localhost\r\n"
                + "Connection: close\r\nContent-Type: application/json\r\nContent-Length: " + content.length + "\r\n");
        headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        byte[] prefix = head.append("\r\n").toString().getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[prefix.length + content.length];
        System.arraycopy(prefix, 0, all, 0, prefix.length);
        System.arraycopy(content, 0, all, prefix.length, content.length);
        return all;
    }

    /** Sends raw bytes (headers a client library would refuse) and reads the status code of the reply. */
    private int rawStatus(byte[] request) throws Exception {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), URI.create(http.server.baseUrl()).getPort())) {
            // No half-close: the request says "Connection: close", so the server ends the connection after its reply.
            socket.setSoTimeout(60_000);
            socket.getOutputStream().write(request);
            socket.getOutputStream().flush();
            String reply = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return Integer.parseInt(reply.substring(9, 12));
        }
    }
}
