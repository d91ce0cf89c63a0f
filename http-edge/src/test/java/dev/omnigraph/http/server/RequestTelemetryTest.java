package dev.omnigraph.http.server;

import static dev.omnigraph.http.testing.HttpFixture.mutation;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import io.netty.handler.codec.http.HttpMethod;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Every request is one observation with the engine's work inside it, and one INFO line on
 * {@code dev.omnigraph.http.requests} whose trace id is the tracer's (when observations are bridged to one), else
 * the client's {@code traceparent}'s, else a fresh one.
 */
class RequestTelemetryTest extends EmptyGraphServer {
    private final Logger requests = (Logger) LoggerFactory.getLogger(RequestTelemetry.LOG.getName());
    /** The request lines as they are logged (off the event loop, so a test waits for each, bounded). */
    private final BlockingQueue<ILoggingEvent> logged = new LinkedBlockingQueue<>();
    private final AppenderBase<ILoggingEvent> lines = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
            logged.add(event);
        }
    };

    @BeforeEach
    void captureRequestLines() {
        lines.start();
        requests.addAppender(lines);
        requests.setLevel(Level.INFO);
        requests.setAdditive(false); // kept in memory: nothing written to the console from an event loop
    }

    @AfterEach
    void releaseRequestLines() {
        requests.detachAppender(lines);
        requests.setLevel(null);
        requests.setAdditive(true);
    }

    /** The key-value pairs of the next request line for {@code route}, waiting (bounded) for it to be logged. */
    private Map<String, String> lineFor(String route) throws InterruptedException {
        while (true) {
            ILoggingEvent event = logged.poll(60, TimeUnit.SECONDS);
            assertThat(event).as("a request line for " + route).isNotNull();
            Map<String, String> pairs = event.getKeyValuePairs().stream()
                    .collect(Collectors.toMap(pair -> pair.key, pair -> String.valueOf(pair.value)));
            if (route.equals(pairs.get("route"))) {
                return pairs;
            }
        }
    }

    @Test
    void aTracedWriteIsOneTraceWithTheEngineWorkUnderTheRequest() throws InterruptedException {
        SimpleTracer tracer = new SimpleTracer();
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(new DefaultTracingObservationHandler(tracer));
        http.start(OmnigraphServer.Config.of(dir), observations);

        Reply write = http.postJson("/graphs/g/mutate", mutation("addPerson", "{\"name\":\"Ada\"}"));
        assertThat(write.status()).as(write.toString()).isEqualTo(200);

        List<SimpleSpan> spans = List.copyOf(tracer.getSpans());
        SimpleSpan request = spans.stream().filter(span -> span.getName().equals("POST /graphs/{graph_id}/mutate"))
                .findFirst().orElseThrow(() -> new AssertionError("no request span in " + spans));
        SimpleSpan engineWrite = spans.stream().filter(span -> span.getName().equals("write mutation"))
                .findFirst().orElseThrow(() -> new AssertionError("no write span in " + spans));
        assertThat(engineWrite.getTraceId()).isEqualTo(request.getTraceId());
        assertThat(engineWrite.getParentId()).isEqualTo(request.getSpanId());
        assertThat(request.getTags()).containsEntry("route", "/graphs/{graph_id}/mutate").containsEntry("status", "200")
                .containsEntry("outcome", "success");
        assertThat(spans).filteredOn(span -> span.getParentId().equals(engineWrite.getSpanId()))
                .extracting(SimpleSpan::getName).contains("plan", "table_commit", "publish");

        Map<String, String> line = lineFor("/graphs/{graph_id}/mutate");
        assertThat(line).containsEntry("trace_id", request.getTraceId()).containsEntry("status", "200")
                .containsEntry("method", "POST").containsEntry("request_id", write.headers().get("X-Request-Id"));
    }

    @Test
    void withoutATracerTheLineCarriesTheCallersTraceIdOrAFreshOne() throws InterruptedException {
        http.start(OmnigraphServer.Config.of(dir));
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

        Reply snapshot = http.send(HttpMethod.GET, "/graphs/g/snapshot", Map.of("traceparent", traceparent), Mono.empty());
        assertThat(snapshot.status()).isEqualTo(200);
        assertThat(lineFor("/graphs/{graph_id}/snapshot")).containsEntry("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736")
                .containsEntry("outcome", "success");

        Reply missing = http.get("/graphs/nope/snapshot");
        assertThat(missing.status()).isEqualTo(404);
        Map<String, String> fresh = lineFor("/graphs/{graph_id}/snapshot");
        assertThat(fresh.get("trace_id")).matches("[0-9a-f]{32}").isNotEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(fresh).containsEntry("status", "404").containsEntry("outcome", "client_error");
        assertThat(Json.parse(missing.body(), "body").path("request_id").asText()).isEqualTo(fresh.get("request_id"));
    }

    @Test
    void aMalformedTraceparentIsIgnored() {
        assertThat(RequestTelemetry.traceId(null, "00-00000000000000000000000000000000-00f067aa0ba902b7-01"))
                .matches("[0-9a-f]{32}").isNotEqualTo("00000000000000000000000000000000");
        assertThat(RequestTelemetry.traceId(null, "garbage\u202e")).matches("[0-9a-f]{32}");
        assertThat(RequestTelemetry.traceId(null, " 00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"))
                .as("upper-case hex is not W3C").isNotEqualTo("4BF92F3577B34DA6A3CE929D0E0E4736");
    }
}
