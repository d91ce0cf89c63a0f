package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.read.QueryExecutor;
import dev.omnigraph.engine.read.QueryLimits;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.testing.StorageFixture;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The query-budget flags of {@code query} and {@code serve}: each is applied, and a bad value names its flag. */
class QueryLimitFlagsTest {
    static final String CROSS = "query cross() { match { $a: Person $b: Person } return { $a.name, $b.name } }";

    @TempDir
    Path dir;
    StorageServices services;
    String root;

    record Run(int code, String out, String err) {}

    @BeforeEach
    void setUp() throws Exception {
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
        root = dir.resolve("graph").toString();
        StringBuilder people = new StringBuilder();
        for (int i = 0; i < 50; i++) people.append("{\"type\":\"Person\",\"data\":{\"name\":\"p").append(i).append("\"}}\n");
        Path schema = Files.writeString(dir.resolve("s.pg"), HttpFixture.SCHEMA);
        Path data = Files.writeString(dir.resolve("people.jsonl"), people);
        assertThat(run("init", "--schema", schema.toString(), root).code()).isZero();
        assertThat(run("load", root, "--data", data.toString(), "--mode", "append").code()).isZero();
    }

    @AfterEach
    void tearDown() {
        services.tables().close();
    }

    Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = OmnigraphCli.run(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), services, args);
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    Run cross(String... flags) {
        String[] args = new String[4 + flags.length];
        args[0] = "query";
        args[1] = "cross";
        args[2] = root;
        args[3] = "-e=" + CROSS;
        System.arraycopy(flags, 0, args, 4, flags.length);
        return run(args);
    }

    @Test
    void eachQueryFlagIsAppliedAndABreachIsATypedError() {
        assertThat(cross().out()).contains("(2500 rows)");

        Run intermediate = cross("--query-max-intermediate-rows", "100");
        assertThat(intermediate.code()).isEqualTo(1);
        assertThat(intermediate.err()).startsWith("error[resource_limit]: query_intermediate_rows is 101, above the limit of 100");

        Run rows = cross("--query-max-rows", "2499", "--json");
        assertThat(rows.code()).isEqualTo(1);
        assertThat(Json.parse(rows.out(), "stdout").path("resource_limit").toString())
                .isEqualTo("{\"resource\":\"query_result_rows\",\"limit\":2499,\"actual\":2500}");

        Run memory = cross("--query-max-memory", "16KiB");
        assertThat(memory.err()).startsWith("error[resource_limit]: query_memory_bytes is ");
        assertThat(cross("--query-max-memory", "64MiB", "--query-max-rows", "2500").code()).isZero();
    }

    @Test
    void aStalledQueryTimesOutWithItsOwnCode() {
        // Handles arm failpoints from this property when they open; the CLI opens its own handle per run.
        System.setProperty(Failpoints.PROPERTY, QueryExecutor.SCAN_FAILPOINT + "=delay(600000)");
        try {
            Run stalled = cross("--query-timeout", "200ms", "--json");
            assertThat(stalled.code()).isEqualTo(1);
            assertThat(stalled.err()).startsWith("error[query_timeout]: query timed out after 200 ms");
            assertThat(Json.parse(stalled.out(), "stdout").path("query_timeout").path("timeout_ms").asLong()).isEqualTo(200);
        } finally {
            System.clearProperty(Failpoints.PROPERTY);
        }
        assertThat(cross("--query-timeout", "30s").code()).isZero();
    }

    @Test
    void badValuesNameTheirFlag() {
        assertThat(cross("--query-timeout", "0").err()).startsWith("error[bad_request]: --query-timeout must be positive");
        assertThat(cross("--query-timeout", "soon").err()).startsWith("error[bad_request]: --query-timeout takes a duration");
        assertThat(cross("--query-max-memory", "lots").err()).startsWith("error[bad_request]: --query-max-memory takes bytes");
        assertThat(cross("--query-max-rows", "0").err()).startsWith("error[bad_request]: --query-max-rows must be positive");
        assertThat(cross("--query-max-rows", "many").err()).startsWith("error[usage]:");
    }

    @Test
    void serveTakesTheSameFlagsForEveryQuery() {
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs(root, "--query-timeout", "2m", "--query-max-rows", "7",
                "--query-max-intermediate-rows", "9", "--query-max-memory", "3MiB");
        assertThat(QueryLimitOptions.of(serve.queryLimits, QueryLimits.DEFAULT))
                .isEqualTo(new QueryLimits(9, 7, 3L << 20, Duration.ofMinutes(2)));
        ServeCommand plain = new ServeCommand();
        new CommandLine(plain).parseArgs(root);
        assertThat(QueryLimitOptions.of(plain.queryLimits, QueryLimits.DEFAULT)).isEqualTo(QueryLimits.DEFAULT);
    }
}
