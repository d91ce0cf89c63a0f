package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.http.wire.Json;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** One in-process CLI run: its exit code and what it printed. */
record CliRun(int code, String out, String err) {
    /** Runs the CLI on {@code services} (null: the run creates and closes its own). */
    static CliRun run(StorageServices services, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = OmnigraphCli.run(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), services, args);
        return new CliRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** As {@link #run}, asserting exit 0. */
    static CliRun ok(StorageServices services, String... args) {
        CliRun run = run(services, args);
        assertThat(run.code()).as(run.toString()).isZero();
        return run;
    }

    /** Through the CLI: {@code init} of the test schema at {@code dir/graph}, then an append of the test people. */
    static java.nio.file.Path seededGraph(StorageServices services, java.nio.file.Path dir) throws java.io.IOException {
        java.nio.file.Path root = dir.resolve("graph");
        java.nio.file.Path schema = java.nio.file.Files.writeString(dir.resolve("social.pg"),
                dev.omnigraph.http.testing.HttpFixture.SCHEMA);
        java.nio.file.Path data = java.nio.file.Files.writeString(dir.resolve("people.jsonl"),
                dev.omnigraph.http.testing.HttpFixture.PEOPLE);
        ok(services, "init", "--schema", schema.toString(), root.toString());
        ok(services, "load", root.toString(), "--data", data.toString(), "--mode", "append");
        return root;
    }

    JsonNode json() {
        return Json.parse(out, "stdout");
    }

    @Override
    public String toString() {
        return "exit " + code + "\nstdout: " + out + "\nstderr: " + err;
    }
}
