package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.http.testing.HttpFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code branch create|list|delete} and {@code load --from} through the CLI, on a real graph. */
class BranchCliTest extends SeededCliGraph {
    List<String> branches() {
        List<String> names = new ArrayList<>();
        CliRun.ok(services, "branch", "list", root.toString(), "--json").json().path("branches")
                .forEach(name -> names.add(name.asText()));
        return names;
    }

    List<String> people(String branch) {
        List<String> names = new ArrayList<>();
        CliRun.ok(services, "query", "people", root.toString(), "-e", HttpFixture.QUERIES, "--branch", branch, "--json")
                .json().path("rows").forEach(row -> names.add(row.path(0).asText(row.path("p.name").asText())));
        return names;
    }

    @Test
    void createListWriteAndDelete() throws Exception {
        JsonNode created = CliRun.ok(services, "branch", "create", root.toString(), "feature", "--json").json();
        assertThat(created.path("name").asText()).isEqualTo("feature");
        assertThat(created.path("from").asText()).isEqualTo("main");
        assertThat(created.path("uri").asText()).startsWith("file:");
        assertThat(branches()).containsExactly("main", "feature");
        assertThat(CliRun.ok(services, "branch", "list", root.toString()).out()).contains("feature  (from main@");

        CliRun.ok(services, "mutate", "addPerson", root.toString(), "-e", HttpFixture.QUERIES,
                "--params", "{\"name\":\"Cy\",\"age\":3}", "--branch", "feature");
        assertThat(people("feature")).contains("Cy");
        assertThat(people("main")).doesNotContain("Cy");
        assertThat(CliRun.ok(services, "commit", "list", root.toString(), "--branch", "feature", "--json").json()
                .path("commits").get(0).path("graph_branch").asText()).isEqualTo("feature");
        assertThat(CliRun.ok(services, "snapshot", root.toString(), "--branch", "feature", "--json").json()
                .path("graph_branch").asText()).isEqualTo("feature");

        CliRun exists = CliRun.run(services, "branch", "create", root.toString(), "feature");
        assertThat(exists.code()).isEqualTo(1);
        assertThat(exists.err()).contains("already exists");
        CliRun bad = CliRun.run(services, "branch", "create", root.toString(), "../evil");
        assertThat(bad.code()).isEqualTo(1);
        assertThat(bad.err()).contains("invalid branch name");
        assertThat(CliRun.run(services, "branch", "delete", root.toString(), "main").code()).isEqualTo(1);
        assertThat(CliRun.run(services, "branch", "delete", root.toString(), "ghost").err()).contains("ghost");

        JsonNode deleted = CliRun.ok(services, "branch", "delete", root.toString(), "feature", "--json").json();
        assertThat(deleted.path("name").asText()).isEqualTo("feature");
        assertThat(branches()).containsExactly("main");
    }

    @Test
    void loadFromCreatesTheBranch() throws Exception {
        Path more = Files.writeString(dir.resolve("more.jsonl"), "{\"type\":\"Person\",\"data\":{\"name\":\"Zed\",\"age\":9}}\n");
        CliRun missing = CliRun.run(services, "load", root.toString(), "--data", more.toString(), "--mode", "append",
                "--branch", "imports");
        assertThat(missing.code()).isEqualTo(1);
        JsonNode loaded = CliRun.ok(services, "load", root.toString(), "--data", more.toString(), "--mode", "append",
                "--branch", "imports", "--from", "main", "--json").json();
        assertThat(loaded.path("branch_created").asBoolean()).isTrue();
        assertThat(loaded.path("base_branch").asText()).isEqualTo("main");
        assertThat(people("imports")).contains("Zed");
        assertThat(people("main")).doesNotContain("Zed");
    }
}
