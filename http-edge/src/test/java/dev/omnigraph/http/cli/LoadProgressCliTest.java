package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.wire.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code omnigraph load} reports progress on stderr: plain lines on a terminal (a real pseudo-terminal made by
 * util-linux {@code script}), JSON lines with {@code --progress json}, and nothing but the result when stderr is
 * not a terminal and no mode is asked for.
 */
class LoadProgressCliTest {
    @TempDir
    Path dir;
    StorageServices services;
    Path root;
    Path data;

    @BeforeEach
    void setUp() throws Exception {
        services = StorageServices.create();
        root = dir.resolve("graph");
        Path schema = Files.writeString(dir.resolve("social.pg"), HttpFixture.SCHEMA);
        CliRun.ok(services, "init", "--schema", schema.toString(), root.toString());
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            lines.add("{\"type\":\"Person\",\"data\":{\"name\":\"p" + i + "\",\"age\":" + (i % 90) + "}}");
        }
        data = Files.write(dir.resolve("people.jsonl"), lines);
    }

    @AfterEach
    void tearDown() {
        services.close();
    }

    @Test
    void withoutATerminalOnlyTheResultIsPrinted() {
        CliRun run = CliRun.ok(services, "load", root.toString(), "--data", data.toString(), "--mode", "append");
        assertThat(run.err()).isEmpty();
        assertThat(run.out().strip().lines()).hasSize(1).allMatch(line -> line.startsWith("loaded 500 node(s)"));
    }

    @Test
    void jsonProgressLinesEachParseAndEndWithASummary() {
        CliRun run = CliRun.ok(services, "load", root.toString(), "--data", data.toString(), "--mode", "append",
                "--progress", "json");
        List<JsonNode> events = run.err().strip().lines().map(line -> Json.parse(line, "stderr")).toList();
        assertThat(events).isNotEmpty();
        JsonNode done = events.get(events.size() - 1);
        assertThat(done.path("event").asText()).isEqualTo("done");
        assertThat(done.path("lines_read").asLong()).isEqualTo(500);
        assertThat(done.path("bytes_read").asLong()).isEqualTo(done.path("bytes_total").asLong()).isPositive();
        assertThat(done.path("nodes_loaded").asLong()).isEqualTo(500);
        assertThat(run.out()).startsWith("loaded 500 node(s)");
    }

    @Test
    void onAPseudoTerminalPlainProgressGoesToStderr() throws Exception {
        services.close(); // the child process takes the graph's writer lock
        services = StorageServices.create();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String command = String.join(" ", java, "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), OmnigraphCli.class.getName(),
                "load", root.toString(), "--data", data.toString(), "--mode", "append");
        Path typescript = dir.resolve("typescript");
        Process process = new ProcessBuilder("script", "-qec", "sh -c '" + command + "'", typescript.toString())
                .redirectInput(ProcessBuilder.Redirect.PIPE).redirectErrorStream(true)
                .redirectOutput(dir.resolve("script-out.txt").toFile()).start();
        process.getOutputStream().close();
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        // The terminal shows stdout and stderr together: the result and, before it, the progress summary.
        String terminal = Files.readString(dir.resolve("script-out.txt"), StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(terminal).isZero();
        assertThat(terminal).contains("load done: read ").contains("500 lines")
                .contains("500 node(s), 0 edge(s) committed").contains("loaded 500 node(s)");
        assertThat(terminal.indexOf("load done:")).isLessThan(terminal.indexOf("loaded 500 node(s)"));
    }
}
