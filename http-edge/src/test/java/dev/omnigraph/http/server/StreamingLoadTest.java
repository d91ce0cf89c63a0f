package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.GraphSnapshot;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.TableInfo;
import dev.omnigraph.http.cli.OmnigraphCli;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.TableRef;
import io.netty.handler.codec.http.HttpMethod;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Multi-MiB NDJSON streamed over HTTP in chunks, and the body limits enforced while the body streams. */
class StreamingLoadTest {
    @TempDir
    Path dir;
    HttpFixture http;

    @BeforeEach
    void setUp() {
        http = new HttpFixture();
    }

    @AfterEach
    void tearDown() {
        http.close();
    }

    /** ~{@code people} × 1 KiB of Person records plus a chain of Knows edges. */
    static byte[] ndjson(int people) {
        StringBuilder out = new StringBuilder();
        String bio = "x".repeat(1000);
        for (int i = 0; i < people; i++) {
            out.append("{\"type\":\"Person\",\"data\":{\"name\":\"p").append(i).append("\",\"age\":").append(i % 100)
                    .append(",\"bio\":\"").append(bio).append(i).append("\"}}\n");
        }
        for (int i = 1; i < people; i += 7) {
            out.append("{\"edge\":\"Knows\",\"from\":\"p").append(i - 1).append("\",\"to\":\"p").append(i)
                    .append("\",\"data\":{\"id\":\"k").append(i).append("\",\"since\":\"2020-01-0").append(1 + i % 9).append("\"}}\n");
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aStreamedLoadEqualsTheSameFileLoadedByTheCli() throws Exception {
        http.init(dir.resolve("served"));
        http.init(dir.resolve("cli"));
        http.start(dir);
        byte[] body = ndjson(4000);
        assertThat(body.length).isGreaterThan(4 << 20);

        // Chunk sizes that split lines at arbitrary points.
        Reply reply = http.send(HttpMethod.POST, "/graphs/served/load/ndjson?mode=append",
                Map.of("Content-Type", "application/x-ndjson"), HttpFixture.chunks(body, 16_411));
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        assertThat(reply.json().path("total_entities").asLong()).isEqualTo(4000 + 572);

        Path file = dir.resolve("people.jsonl");
        Files.write(file, body);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = OmnigraphCli.run(new PrintStream(out, true), new PrintStream(new ByteArrayOutputStream(), true),
                http.services, "load", dir.resolve("cli").toString(), "--data", file.toString(), "--mode", "append");
        assertThat(code).as(out.toString()).isZero();

        Omnigraph served = http.server.graph("served").block();
        Omnigraph viaCli = Omnigraph.open(http.services, dir.resolve("cli"), OpenMode.READ_ONLY).block();
        for (String table : List.of("node:Person", "edge:Knows")) {
            List<Map<String, Object>> a = rows(served, table);
            List<Map<String, Object>> b = rows(viaCli, table);
            assertThat(a).as(table).hasSize(table.startsWith("node") ? 4000 : 572);
            assertThat(a).as(table).isEqualTo(b);
        }
    }

    /** Committed rows of one table, sorted by id, without the row-version bookkeeping columns. */
    private List<Map<String, Object>> rows(Omnigraph graph, String tableKey) {
        GraphSnapshot snapshot = graph.snapshot(ReadTarget.main()).block();
        TableInfo table = snapshot.table(tableKey).orElseThrow();
        TableRef ref = new TableRef(graph.root().resolve(table.path()).toString(), table.lanceBranch());
        return http.services.tables().open(ref, OptionalLong.of(table.version()))
                .flatMapMany(pinned -> http.services.tables().scan(pinned, ScanRequest.all()))
                .flatMapIterable(RowBatch::rows)
                .map(row -> {
                    Map<String, Object> copy = new TreeMap<>(row);
                    copy.keySet().removeIf(k -> k.startsWith("_"));
                    if (tableKey.startsWith("edge")) copy.remove("id");
                    return copy;
                })
                .sort(Comparator.comparing(Object::toString))
                .collectList().block();
    }

    @Test
    void oversizeBodiesAre413BeforeTheEngineSeesThemAll() {
        Omnigraph graph = http.init(dir.resolve("g"));
        http.start(OmnigraphServer.Config.of(dir).withLimits(ServerLimits.DEFAULT.withLoadBodyBytes(2L << 20)));

        // A JSON route: 1 MiB, here streamed in chunks without a Content-Length.
        String padding = "x".repeat((1 << 20) + 10);
        byte[] big = Json.text(Json.object().put("query", "query q() { }").put("pad", padding)).getBytes(StandardCharsets.UTF_8);
        Reply json = http.send(HttpMethod.POST, "/graphs/g/mutate", Map.of("Content-Type", "application/json"),
                HttpFixture.chunks(big, 64 * 1024));
        assertThat(json.status()).isEqualTo(413);
        JsonNode error = json.json();
        assertThat(error.path("code").asText()).isEqualTo("bad_request");
        assertThat(error.path("resource_limit").path("limit").asLong()).isEqualTo(1 << 20);
        assertThat(error.path("resource_limit").path("actual").asLong()).isGreaterThan(1 << 20);
        assertThat(error.path("resource_limit").path("resource").asText()).isEqualTo("request body bytes");

        // A streamed load over its (lowered) limit, chunked: refused while streaming, nothing committed.
        byte[] load = ndjson(3000);
        Reply streamed = http.send(HttpMethod.POST, "/graphs/g/load/ndjson?mode=append",
                Map.of("Content-Type", "application/x-ndjson"), HttpFixture.chunks(load, 32 * 1024));
        assertThat(streamed.status()).as(streamed.toString()).isEqualTo(413);
        assertThat(streamed.json().path("resource_limit").path("limit").asLong()).isEqualTo(2L << 20);
        assertThat(streamed.json().path("resource_limit").path("actual").asLong()).isLessThan(load.length);

        // A declared Content-Length over the limit is refused without reading the body.
        Reply declared = http.send(HttpMethod.POST, "/graphs/g/load", Map.of("Content-Type", "application/json"),
                HttpFixture.text(Json.text(Json.object().put("data", new String(load, StandardCharsets.UTF_8)))));
        assertThat(declared.status()).isEqualTo(413);
        assertThat(declared.json().path("resource_limit").path("actual").asLong()).isGreaterThan(load.length);

        assertThat(graph.commits("main").collectList().block()).hasSize(1);
        // The server is still healthy afterwards.
        assertThat(http.get("/healthz").status()).isEqualTo(200);
    }

    /**
     * Jackson's default cap of 20,000,000 characters on one string once refused this as "malformed JSON" although
     * the body limit is 32 MiB. (The data stays under the engine's own Arrow-bytes estimate for one load.)
     */
    @Test
    void aLoadEnvelopeWhoseDataIsOver20MillionCharactersIsLoaded() {
        http.init(dir.resolve("g"));
        http.start(dir);
        String bio = "b".repeat(7_000_000);
        StringBuilder data = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            data.append("{\"type\":\"Person\",\"data\":{\"name\":\"big").append(i).append("\",\"bio\":\"")
                    .append(bio).append("\"}}\n");
        }
        byte[] body = Json.text(Json.object().put("data", data.toString()).put("mode", "append"))
                .getBytes(StandardCharsets.UTF_8);
        assertThat(data.length()).isGreaterThan(20_000_000);
        assertThat(body.length).isLessThan(32 << 20);
        Reply reply = http.send(HttpMethod.POST, "/graphs/g/load", Map.of("Content-Type", "application/json"),
                HttpFixture.chunks(body, 1 << 20));
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        assertThat(reply.json().path("total_entities").asLong()).isEqualTo(3);
    }
}
