package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code index ensure} and {@code load --index} through the CLI, on a real graph whose seeding load built its key
 * indexes: ensure builds what a schema change added, then nothing.
 */
class IndexCliTest extends SeededCliGraph {
    /** Adds {@code @index} to Person's {@code age} (only an ensure builds it). */
    void indexAge() throws Exception {
        Path next = Files.writeString(dir.resolve("indexed.pg"),
                dev.omnigraph.http.testing.HttpFixture.SCHEMA.replace("age: I32?", "age: I32? @index"));
        CliRun.ok(services, "schema", "apply", "--schema", next.toString(), root.toString());
    }

    @Test
    void ensureBuildsWhatASchemaChangeAddedThenReportsNothingToDo() throws Exception {
        assertThat(CliRun.ok(services, "index", "ensure", root.toString()).out())
                .as("the load built the key indexes").contains("indexes of main are complete: nothing to build");
        indexAge();
        JsonNode built = CliRun.ok(services, "index", "ensure", root.toString(), "--json", "--as", "ops").json();
        assertThat(built.path("built").toString()).isEqualTo("{\"node:Person\":[\"og_btree_age\"]}");
        assertThat(built.path("commit").path("actor_id").asText()).isEqualTo("ops");
        assertThat(CliRun.ok(services, "index", "ensure", root.toString()).out())
                .contains("indexes of main are complete: nothing to build");
        assertThat(CliRun.run(services, "index", "ensure", root.toString(), "--branch", "ghost").code()).isEqualTo(1);
        assertThat(CliRun.run(services, "index").code()).isEqualTo(1);
    }

    @Test
    void loadWithIndexBuildsAfterTheLoad() throws Exception {
        // The load builds what its own rows' table lacks; --index then builds the rest (here: Knows, not loaded).
        Path next = Files.writeString(dir.resolve("since.pg"),
                dev.omnigraph.http.testing.HttpFixture.SCHEMA.replace("since: Date?", "since: Date? @index"));
        CliRun.ok(services, "schema", "apply", "--schema", next.toString(), root.toString());
        Path more = Files.writeString(dir.resolve("more.jsonl"), "{\"type\":\"Person\",\"data\":{\"name\":\"Zed\",\"age\":9}}\n");
        CliRun run = CliRun.ok(services, "load", root.toString(), "--data", more.toString(), "--mode", "append", "--index");
        assertThat(run.out()).contains("loaded 1 node(s)").contains("edge:Knows  built og_btree_since");
        CliRun again = CliRun.ok(services, "load", root.toString(), "--data", dir.resolve("more.jsonl").toString(),
                "--mode", "merge", "--index");
        assertThat(again.out()).contains("nothing to build");
    }
}
