package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.testing.ChildJvm;
import dev.omnigraph.storage.testing.StorageFixture;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --log-format json} in a real child process: every log line on stderr is one JSON object, and a
 * request's line carries its route, status, request id and the trace id of the client's {@code traceparent}.
 */
class ServeLogFormatTest {
    private static final Pattern SERVING_AT = Pattern.compile(" at (http://\\S+)");

    @Test
    @Timeout(300)
    void jsonLogLinesCarryTheRequestAndItsTraceId(@TempDir Path dir) throws Exception {
        Path root = dir.resolve("graph");
        StorageServices services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
        try {
            Omnigraph.at(root).services(services).init(HttpFixture.SCHEMA).block().closeAsync().block();
        } finally {
            services.tables().close();
        }
        Process server = ChildJvm.start(OmnigraphCli.class, dir.resolve("tmp"),
                List.of("serve", "--graph", root.toString(), "--port", "0", "--log-format", "json"), List.of());
        try {
            OutputLines output = new OutputLines(server);
            String url = null;
            for (String line = output.readLine(); url == null && line != null; line = output.readLine()) {
                Matcher serving = SERVING_AT.matcher(line);
                if (line.startsWith("omnigraph serving") && serving.find()) {
                    url = serving.group(1);
                } else if (line.startsWith("{")) {
                    Json.parse(line, "log line"); // every log line before the banner is JSON too
                }
            }
            assertThat(url).as("the banner").isNotNull();

            HttpResponse<String> snapshot = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + "/snapshot"))
                    .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
                    .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(snapshot.statusCode()).as(snapshot.body()).isEqualTo(200);

            // The banner's other lines are plain stdout; every line from here that is not one is a JSON log object.
            for (String line = output.readLine(); line != null; line = output.readLine()) {
                if (!line.startsWith("{")) {
                    assertThat(line).as("a banner line, never a text log line").doesNotMatch("\\d{4}-\\d\\d-\\d\\dT.*");
                    continue;
                }
                JsonNode event = Json.parse(line, "log line");
                if (!event.path("loggerName").asText().equals("dev.omnigraph.http.requests")) {
                    continue;
                }
                Map<String, String> pairs = keyValues(event);
                assertThat(event.path("level").asText()).isEqualTo("INFO");
                assertThat(event.path("formattedMessage").asText()).isEqualTo("served");
                assertThat(pairs).containsEntry("route", "/snapshot").containsEntry("status", "200")
                        .containsEntry("trace_id", "0af7651916cd43dd8448eb211c80319c")
                        .containsEntry("request_id", snapshot.headers().firstValue("X-Request-Id").orElseThrow());
                return;
            }
            throw new AssertionError("the server ended without logging the request");
        } finally {
            server.destroyForcibly().waitFor();
        }
    }

    /**
     * The child's output lines, read on a thread of their own so a test waits for a line with a bound (a blocked
     * {@code readLine} would not yield to JUnit's timeout). Null once the child's output ended.
     */
    private static final class OutputLines {
        private static final String END = new String("end");
        private final java.util.concurrent.BlockingQueue<String> lines = new java.util.concurrent.LinkedBlockingQueue<>();

        OutputLines(Process child) {
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = in.readLine(); line != null; line = in.readLine()) {
                        lines.add(line);
                    }
                } catch (java.io.IOException ended) {
                    // the child was killed: its output ends here
                } finally {
                    lines.add(END);
                }
            }, "serve-output");
            reader.setDaemon(true);
            reader.start();
        }

        String readLine() throws InterruptedException {
            String line = lines.poll(120, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(line).as("a line from the server within 120 s").isNotNull();
            return line == END ? null : line;
        }
    }

    /** logback's {@code kvpList}: an array of one-entry objects. */
    private static Map<String, String> keyValues(JsonNode event) {
        Map<String, String> pairs = new HashMap<>();
        event.path("kvpList").forEach(entry -> entry.fields().forEachRemaining(field -> pairs.put(field.getKey(),
                field.getValue().asText())));
        return pairs;
    }

    @Test
    void anUnknownLogFormatOrLevelIsATypedErrorBeforeAnythingStarts() {
        for (List<String> flags : List.of(List.of("--log-format", "xml"), List.of("--log-level", "loud"))) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            List<String> args = new java.util.ArrayList<>(List.of("serve", "--graph", "/nonexistent", "--port", "0"));
            args.addAll(flags);
            StorageServices services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
            int code;
            try {
                code = OmnigraphCli.run(new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8), services, args.toArray(String[]::new));
            } finally {
                services.tables().close();
            }
            assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(OmnigraphCli.ERROR);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains(flags.get(0)).contains(flags.get(1));
        }
    }
}
