package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.wire.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code optimize}, {@code cleanup}, {@code index ensure} and {@code branch merge} report their steps on stderr
 * with {@code --progress plain|json}, from the engine's observations; without a terminal and without the flag they
 * print only their result.
 */
class MaintenanceProgressCliTest {
    @TempDir
    Path dir;
    StorageServices services;
    Path root;

    @BeforeEach
    void setUp() throws Exception {
        services = StorageServices.create();
        root = dir.resolve("graph");
        Path schema = Files.writeString(dir.resolve("social.pg"), HttpFixture.SCHEMA);
        CliRun.ok(services, "init", "--schema", schema.toString(), root.toString());
        for (int load = 0; load < 3; load++) { // three fragments for optimize to compact, versions for cleanup
            Path data = Files.writeString(dir.resolve("people" + load + ".jsonl"),
                    "{\"type\":\"Person\",\"data\":{\"name\":\"p" + load + "\",\"age\":" + load + "}}\n");
            CliRun.ok(services, "load", root.toString(), "--data", data.toString(), "--mode", "append");
        }
    }

    @AfterEach
    void tearDown() {
        services.close();
    }

    private static List<JsonNode> events(CliRun run) {
        return run.err().strip().lines().map(line -> Json.parse(line, "stderr")).toList();
    }

    @Test
    void optimizeReportsEachProtocolStepThenItsEnd() {
        CliRun run = CliRun.ok(services, "optimize", root.toString(), "--progress", "json");
        List<JsonNode> events = events(run);
        assertThat(events).allSatisfy(event -> assertThat(event.path("verb").asText()).isEqualTo("optimize"));
        assertThat(events).filteredOn(event -> event.path("event").asText().equals("step"))
                .extracting(event -> event.path("what").asText())
                .containsSubsequence("arm", "table_commit", "publish", "sidecar_delete");
        JsonNode end = events.get(events.size() - 1);
        assertThat(end.path("event").asText()).isEqualTo("end");
        assertThat(end.path("outcome").asText()).isEqualTo("done");
        assertThat(run.out()).contains("committed ");
    }

    @Test
    void cleanupReportsEachDatasetInPlainLines() {
        CliRun.ok(services, "optimize", root.toString(), "--progress", "none");
        CliRun run = CliRun.ok(services, "cleanup", root.toString(), "--keep", "1", "--confirm", "--progress", "plain");
        List<String> lines = run.err().strip().lines().toList();
        assertThat(lines).filteredOn(line -> line.matches("cleanup: dataset \\d+ done \\(\\d+ ms\\)")).isNotEmpty();
        assertThat(lines.get(lines.size() - 1)).matches("cleanup: cleanup done \\(\\d+ ms\\)");
    }

    @Test
    void indexEnsureAndBranchMergeReportTheirWrites() {
        List<JsonNode> ensured = events(CliRun.ok(services, "index", "ensure", root.toString(), "--progress", "json"));
        assertThat(ensured.get(ensured.size() - 1).path("what").asText()).isEqualTo("index ensure");

        CliRun.ok(services, "branch", "create", root.toString(), "feature");
        CliRun.ok(services, "load", root.toString(), "--branch", "feature", "--mode", "append", "--data",
                writeData("{\"type\":\"Person\",\"data\":{\"name\":\"Zed\"}}\n").toString());
        CliRun merged = CliRun.ok(services, "branch", "merge", root.toString(), "feature", "--progress", "json");
        List<JsonNode> events = events(merged);
        assertThat(events).extracting(event -> event.path("what").asText()).contains("publish", "branch merge");
        assertThat(events.get(events.size() - 1).path("event").asText()).isEqualTo("end");
    }

    @Test
    void withoutATerminalOrTheFlagNothingButTheResultIsPrinted() {
        CliRun run = CliRun.ok(services, "optimize", root.toString());
        assertThat(run.err()).isEmpty();
        assertThat(run.out()).contains("committed ");
    }

    @Test
    void anUnknownProgressModeIsATypedError() {
        CliRun run = CliRun.run(services, "optimize", root.toString(), "--progress", "loud");
        assertThat(run.code()).isEqualTo(OmnigraphCli.ERROR);
        assertThat(run.err()).contains("--progress takes auto, plain, json or none");
    }

    private Path writeData(String text) {
        try {
            return Files.writeString(dir.resolve("more.jsonl"), text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
