package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.internal.HandleInternals;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.Failpoints;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /load/ndjson} with {@code Accept: application/x-ndjson} streams progress lines while the load runs,
 * then what it consumed, then its outcome; a refused load ends with an {@code error} line and commits nothing.
 */
class LoadProgressRouteTest extends EmptyGraphServer {
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();

    private HttpResponse<java.util.stream.Stream<String>> load(String body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(http.server.baseUrl() + "/graphs/g/load/ndjson?mode=append"))
                .header("Content-Type", "application/x-ndjson").header("Accept", "application/x-ndjson")
                .timeout(Duration.ofSeconds(120)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofLines());
    }

    @Test
    void aRunningLoadReportsProgressThenWhatItReadThenItsCommit() throws Exception {
        http.start(OmnigraphServer.Config.of(dir));
        Omnigraph graph = http.server.graph("g").block();
        // Parked once it has read its whole body: progress lines must then say so, before the outcome.
        Failpoints.Parked parked = HandleInternals.of(graph).failpoints().park("load.after_arm");
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            body.append("{\"type\":\"Person\",\"data\":{\"name\":\"p").append(i).append("\"}}\n");
        }
        long bytes = body.toString().getBytes(StandardCharsets.UTF_8).length;

        HttpResponse<java.util.stream.Stream<String>> response = load(body.toString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).contains("application/x-ndjson");
        List<JsonNode> events = new ArrayList<>();
        Iterator<String> lines = response.body().iterator();
        while (lines.hasNext()) {
            JsonNode event = Json.parse(lines.next(), "line");
            events.add(event);
            if (event.path("event").asText().equals("progress") && event.path("bytes_received").asLong() == bytes) {
                parked.release(); // seen while parked: the load cannot have ended yet
            }
        }
        HandleInternals.of(graph).failpoints().disarm("load.after_arm");

        assertThat(events).as("progress while parked").anySatisfy(event -> {
            assertThat(event.path("event").asText()).isEqualTo("progress");
            assertThat(event.path("lines_received").asLong()).isEqualTo(200);
        });
        JsonNode received = events.get(events.size() - 2);
        assertThat(received.path("event").asText()).isEqualTo("received");
        assertThat(received.path("bytes_received").asLong()).isEqualTo(bytes);
        JsonNode done = events.get(events.size() - 1);
        assertThat(done.path("event").asText()).isEqualTo("done");
        assertThat(done.path("replayed").asBoolean()).isFalse();
        assertThat(done.path("result").path("affected_nodes").asLong()).as(done.toString()).isEqualTo(200);
        assertThat(http.get("/graphs/g/snapshot").json().toString()).contains(done.path("result").path("commit").path("graph_commit_id").asText());
    }

    @Test
    void aRefusedLoadEndsWithAnErrorLineAndCommitsNothing() throws Exception {
        http.start(OmnigraphServer.Config.of(dir));
        String head = http.get("/graphs/g/snapshot").json().path("graph_commit_id").asText();

        List<String> lines = load("{\"type\":\"Person\",\"data\":{\"name\":\"ok\"}}\n{\"type\":\"Nope\",\"data\":{}}\n")
                .body().toList();
        JsonNode last = Json.parse(lines.get(lines.size() - 1), "line");
        assertThat(last.path("event").asText()).isEqualTo("error");
        assertThat(last.path("status").asInt()).isEqualTo(400);
        assertThat(last.path("error").path("request_id").asText()).isNotEmpty();
        assertThat(last.path("error").path("error").asText()).contains("Nope");
        assertThat(http.get("/graphs/g/snapshot").json().path("graph_commit_id").asText()).isEqualTo(head);
    }
}
