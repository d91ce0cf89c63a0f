package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.http.testing.HttpFixture;
import org.junit.jupiter.api.Test;

/** {@code branch merge} through the CLI on a real graph: text and JSON output, conflicts, a refused delete. */
class BranchMergeCliTest extends SeededCliGraph {
    void setAge(String branch, String name, int age) {
        CliRun.ok(services, "mutate", "setAge", root.toString(), "-e", HttpFixture.QUERIES,
                "--params", "{\"name\":\"" + name + "\",\"age\":" + age + "}", "--branch", branch);
    }

    @Test
    void mergeIntoABranchThenIntoMainWithJson() {
        CliRun.ok(services, "branch", "create", root.toString(), "feature");
        CliRun.ok(services, "branch", "create", root.toString(), "team");
        setAge("feature", "Ada", 50);
        setAge("team", "Bob", 60);

        CliRun merged = CliRun.ok(services, "branch", "merge", root.toString(), "feature", "--into", "team");
        assertThat(merged.out()).startsWith("merged: feature into team (commit ");

        JsonNode json = CliRun.ok(services, "branch", "merge", root.toString(), "team", "--json", "--as", "act-ann").json();
        assertThat(json.path("outcome").asText()).isEqualTo("fast_forward");
        assertThat(json.path("target").asText()).isEqualTo("main");
        assertThat(json.path("actor_id").asText()).isEqualTo("act-ann");
        assertThat(json.path("commit").path("actor_id").asText()).isEqualTo("act-ann");
    }

    @Test
    void conflictsExitOneAndARefusedDeleteIsOnlyAWarning() {
        CliRun.ok(services, "branch", "create", root.toString(), "feature");
        CliRun.ok(services, "branch", "create", root.toString(), "child", "--from", "feature");
        setAge("feature", "Ada", 50);
        setAge("main", "Ada", 51);
        CliRun refused = CliRun.run(services, "branch", "merge", root.toString(), "feature");
        assertThat(refused.code()).isEqualTo(1);
        assertThat(refused.err()).contains("divergent_update");

        setAge("main", "Ada", 50); // now both sides agree
        CliRun merged = CliRun.ok(services, "branch", "merge", root.toString(), "feature", "--delete-branch", "--json");
        assertThat(merged.json().path("outcome").asText()).isEqualTo("merged");
        assertThat(merged.json().path("branch_deleted").asBoolean()).isFalse();
        assertThat(merged.err()).contains("warning: branch feature was merged but not deleted");
    }
}
