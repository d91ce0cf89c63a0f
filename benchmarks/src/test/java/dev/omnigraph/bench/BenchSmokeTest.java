package dev.omnigraph.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the runner works: every scenario of a {@code --quick} run (tiny sizes, a couple of repetitions) completes
 * and leaves a well-formed Markdown table and JSON file. Nothing here asserts anything about time.
 */
class BenchSmokeTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void aQuickRunOfEveryScenarioWritesWellFormedTablesAndJson() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        int code = BenchMain.run(new String[] {"--quick", "--out", dir.resolve("results").toString(),
                "--work", dir.resolve("work").toString()}, new PrintStream(printed, true, StandardCharsets.UTF_8));
        String text = printed.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        assertThat(code).as("exit code (a scenario failed?)\n" + text).isZero();

        Path runDir;
        try (Stream<Path> runs = Files.list(dir.resolve("results"))) {
            runDir = runs.filter(Files::isDirectory).findFirst().orElseThrow();
        }
        assertThat(runDir.getFileName().toString()).endsWith("-quick");
        JsonNode run = JSON.readTree(runDir.resolve("run.json").toFile());
        assertThat(run.path("scenarios")).hasSize(Scenarios.NAMES.size());
        assertThat(run.path("machine").path("availableProcessors").asInt()).isPositive();

        for (String name : Scenarios.NAMES) {
            assertThat(text).contains("### " + name);
            JsonNode report = JSON.readTree(runDir.resolve(name + ".json").toFile());
            assertThat(report.path("scenario").asText()).isEqualTo(name);
            assertThat(report.path("failed").asBoolean()).as(name).isFalse();
            assertThat(report.path("rows").size()).as(name).isGreaterThanOrEqualTo(2);
            assertThat(report.path("rows").findValues("compareTo")).as(name + " has a baseline row")
                    .anyMatch(JsonNode::isNull);
            for (JsonNode row : report.path("rows")) {
                String label = name + " / " + row.path("name").asText();
                int reps = row.path("repetitions").asInt();
                assertThat(row.path("samples").size()).as(label).isEqualTo(reps);
                if (reps == 0) {
                    // Only Neo4j may be missing, and only when it was too slow to start; the report must say so.
                    assertThat(row.path("name").asText()).as(label).startsWith("neo4j");
                    assertThat(report.path("notes").toString()).as(label).contains("SKIPPED");
                    continue;
                }
                assertThat(row.path("median").isNumber()).as(label).isTrue();
                assertThat(row.path("min").asDouble()).as(label).isLessThanOrEqualTo(row.path("median").asDouble());
                assertThat(row.path("max").asDouble()).as(label).isGreaterThanOrEqualTo(row.path("p99").asDouble());
                // A ratio against a skipped baseline (Neo4j too slow to start on a busy machine) is "not measured".
                boolean baselineSkipped = report.path("notes").toString().contains("SKIPPED");
                assertThat(row.path("ratio").isNumber() || baselineSkipped).as(label).isTrue();
            }
        }

        String summary = Files.readString(runDir.resolve("summary.md"));
        assertThat(summary).contains("availableProcessors");
        List<String> tableLines = summary.lines().filter(line -> line.startsWith("|")).toList();
        assertThat(tableLines).isNotEmpty();
        long headerPipes = tableLines.get(0).chars().filter(c -> c == '|').count();
        assertThat(tableLines).allSatisfy(line ->
                assertThat(line.chars().filter(c -> c == '|').count()).as(line).isEqualTo(headerPipes));
    }

    @Test
    void theJmhBenchmarksAreGenerated() throws Exception {
        try (InputStream list = getClass().getResourceAsStream("/META-INF/BenchmarkList")) {
            assertThat(list).as("JMH annotation processor output").isNotNull();
            String text = new String(list.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(text).contains("PublisherCasBench", "GateBench", "NdjsonParseBench");
        }
    }
}
