package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.http.testing.ErrorBodyAudit;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.ParseError;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.SignalType;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.client.HttpClient;

/**
 * The streamed envelopes of {@code /query} and {@code /export}, driven by synthetic row and line fluxes (produced
 * on another scheduler, as the engine's are): batches, demand, empty results, and failures before the first row.
 */
class StreamingResponsesTest {
    DisposableServer server;
    HttpClient client;
    final AtomicLong produced = new AtomicLong();

    @BeforeEach
    void setUp() {
        server = HttpServer.create().host("127.0.0.1").port(0).handle((req, res) -> {
            Exchange ex = Exchange.begin(req, res, "test-1", ServerLimits.DEFAULT);
            ObjectNode head = Json.object().put("query_name", "q");
            List<String> columns = List.of("name", "n", "born");
            return switch (new io.netty.handler.codec.http.QueryStringDecoder(req.uri()).path()) {
                case "/rows" -> Streaming.rowsEnvelope(ex, head, columns, Flux.range(0, 1000)
                        .doOnNext(i -> produced.incrementAndGet())
                        .map(i -> List.<Object>of("p" + i, i, LocalDate.of(2000, 1, 1).plusDays(i)))
                        .publishOn(Schedulers.boundedElastic()), n -> null);
                case "/empty" -> Streaming.rowsEnvelope(ex, head, columns, Flux.empty(), n -> null);
                case "/rows-error" -> Streaming.rowsEnvelope(ex, head, columns,
                        Flux.error(new NotFound("branch", "x", "branch x does not exist")), n -> null);
                case "/lines" -> Streaming.ndjson(ex, Flux.range(0, 700).map(i -> "{\"i\":" + i + "}")
                        .publishOn(Schedulers.parallel()), n -> null);
                case "/lines-error" -> Streaming.ndjson(ex, Flux.error(new ParseError("query", 1, 2, "", "bad")), n -> null);
                default -> res.status(404).send();
            };
        }).bindNow();
        client = HttpClient.newConnection().baseUrl("http://127.0.0.1:" + server.port());
    }

    @AfterEach
    void tearDown() {
        server.disposeNow();
    }

    record Reply(int status, String type, String body) {
    }

    Reply get(String path) {
        Reply reply = client.get().uri(path).responseSingle((r, b) -> b.asString(StandardCharsets.UTF_8).defaultIfEmpty("")
                .map(text -> new Reply(r.status().code(), r.responseHeaders().get("Content-Type"), text)))
                .block(Duration.ofSeconds(30));
        if (reply.status() >= 400) ErrorBodyAudit.check(reply.status(), reply.body());
        return reply;
    }

    @Test
    void rowsAreStreamedIntoOneValidEnvelope() {
        Reply reply = get("/rows");
        assertThat(reply.status()).isEqualTo(200);
        JsonNode out = Json.parse(reply.body(), "body");
        assertThat(out.path("query_name").asText()).isEqualTo("q");
        assertThat(out.path("row_count").asInt()).isEqualTo(1000);
        assertThat(out.path("rows")).hasSize(1000);
        assertThat(out.path("rows").get(999).toString()).isEqualTo("{\"name\":\"p999\",\"n\":999,\"born\":\"2002-09-26\"}");
        assertThat(produced.get()).isEqualTo(1000);

        JsonNode empty = Json.parse(get("/empty").body(), "body");
        assertThat(empty.path("rows")).isEmpty();
        assertThat(empty.path("row_count").asInt()).isZero();
    }

    @Test
    void aFailureBeforeTheFirstRowIsAnErrorResponse() {
        Reply rows = get("/rows-error");
        assertThat(rows.status()).isEqualTo(404);
        assertThat(rows.type()).isEqualTo("application/json");
        assertThat(Json.parse(rows.body(), "body").path("code").asText()).isEqualTo("not_found");

        Reply lines = get("/lines-error");
        assertThat(lines.status()).isEqualTo(400);
        assertThat(Json.parse(lines.body(), "body").path("parse_error").path("column").asInt()).isEqualTo(2);
    }

    @Test
    void linesAreNdjson() {
        Reply reply = get("/lines");
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.type()).isEqualTo("application/x-ndjson");
        List<String> lines = reply.body().lines().toList();
        assertThat(lines).hasSize(700);
        assertThat(lines.get(699)).isEqualTo("{\"i\":699}");
        assertThat(reply.body()).endsWith("\n");
    }

    @Test
    void theClientsDemandBoundsWhatIsProduced() throws Exception {
        // Read only the first bytes, then cancel: the row source must not have been drained to the end.
        produced.set(0);
        CompletableFuture<SignalType> ended = new CompletableFuture<>();
        server.disposeNow();
        server = HttpServer.create().host("127.0.0.1").port(0).handle((req, res) -> Streaming.rowsEnvelope(
                Exchange.begin(req, res, "test-1", ServerLimits.DEFAULT), Json.object().put("query_name", "q"),
                List.of("pad"), Flux.range(0, 1_000_000).doOnNext(i -> produced.incrementAndGet())
                        .doFinally(ended::complete)
                        .map(i -> List.<Object>of("x".repeat(200))), n -> null)).bindNow();
        Integer firstChunk = HttpClient.newConnection().baseUrl("http://127.0.0.1:" + server.port()).get().uri("/")
                .responseContent().take(1).map(buf -> buf.readableBytes()).blockFirst(Duration.ofSeconds(30));
        assertThat(firstChunk).isPositive();
        // The row source ends when the closed connection cancels it, not by being drained to the end.
        assertThat(ended.get(30, TimeUnit.SECONDS)).isEqualTo(SignalType.CANCEL);
        assertThat(produced.get()).isLessThan(1_000_000);
    }
}
