package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code index ensure} and {@code load --index} through the CLI, on a real graph. */
class IndexCliTest extends SeededCliGraph {
    @Test
    void ensureBuildsThenReportsNothingToDo() {
        JsonNode built = CliRun.ok(services, "index", "ensure", root.toString(), "--json", "--as", "ops").json();
        assertThat(built.path("built").path("node:Person").toString()).isEqualTo("[\"og_btree_id\"]");
        assertThat(built.path("commit").path("actor_id").asText()).isEqualTo("ops");
        assertThat(CliRun.ok(services, "index", "ensure", root.toString()).out())
                .contains("indexes of main are complete: nothing to build");
        assertThat(CliRun.run(services, "index", "ensure", root.toString(), "--branch", "ghost").code()).isEqualTo(1);
        assertThat(CliRun.run(services, "index").code()).isEqualTo(1);
    }

    @Test
    void loadWithIndexBuildsAfterTheLoad() throws Exception {
        Path more = Files.writeString(dir.resolve("more.jsonl"), "{\"type\":\"Person\",\"data\":{\"name\":\"Zed\",\"age\":9}}\n");
        CliRun run = CliRun.ok(services, "load", root.toString(), "--data", more.toString(), "--mode", "append", "--index");
        assertThat(run.out()).contains("loaded 1 node(s)").contains("node:Person  built og_btree_id");
        CliRun again = CliRun.ok(services, "load", root.toString(), "--data", dir.resolve("more.jsonl").toString(),
                "--mode", "merge", "--index");
        assertThat(again.out()).contains("nothing to build");
    }
}
