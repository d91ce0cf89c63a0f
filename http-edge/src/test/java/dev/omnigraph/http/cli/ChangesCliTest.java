package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.http.wire.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code commit changes} and {@code changes poll|baseline} through the CLI, on a graph on disk. */
class ChangesCliTest extends SeededCliGraph {
    String head() {
        return CliRun.ok(services, "commit", "list", root.toString(), "--json").json().path("commits").get(0)
                .path("graph_commit_id").asText();
    }

    @Test
    void commitChangesPrintsEachChangeAndPagesWithJson() {
        String loaded = head();
        String text = CliRun.ok(services, "commit", "changes", root.toString(), loaded).out();
        assertThat(text.lines()).containsExactly("insert  edge Knows  k1  (Ada -> Bob)", "insert  edge WorksAt  w1  (Ada -> Acme)",
                "insert  node Company  Acme", "insert  node Person  Ada", "insert  node Person  Bob");

        JsonNode page = CliRun.ok(services, "commit", "changes", root.toString(), loaded, "--json", "--limit", "3",
                "--kind", "node").json();
        assertThat(page.path("cause").path("graph_commit_id").asText()).isEqualTo(loaded);
        assertThat(page.path("changes")).hasSize(3);
        assertThat(page.has("next_page_token")).isFalse();
        JsonNode first = CliRun.ok(services, "commit", "changes", root.toString(), loaded, "--json", "--limit", "2").json();
        JsonNode rest = CliRun.ok(services, "commit", "changes", root.toString(), loaded, "--json", "--limit", "5",
                "--page-token", first.path("next_page_token").asText()).json();
        assertThat(rest.path("changes")).hasSize(3);
        assertThat(rest.path("changes").get(0).path("id").asText()).isEqualTo("Acme");

        CliRun unknown = CliRun.run(services, "commit", "changes", root.toString(), "01JNOSUCHCOMMIT00000000000");
        assertThat(unknown.code()).isEqualTo(OmnigraphCli.ERROR);
        CliRun badOp = CliRun.run(services, "commit", "changes", root.toString(), loaded, "--op", "upsert");
        assertThat(badOp.code()).isEqualTo(OmnigraphCli.ERROR);
        assertThat(badOp.err()).contains("op");
    }

    @Test
    void pollFollowsTheFeedFromACursorAndBaselineWritesItsResumeCursor() throws IOException {
        JsonNode start = CliRun.ok(services, "changes", "poll", root.toString(), "--start", "beginning").json();
        assertThat(start.path("blocks")).hasSize(1);
        assertThat(start.path("blocks").get(0).path("changes")).hasSize(5);
        String cursor = start.path("cursor").asText();

        Path more = Files.writeString(dir.resolve("more.jsonl"), "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":37}}\n");
        CliRun.ok(services, "load", root.toString(), "--data", more.toString(), "--mode", "merge");
        Path out = dir.resolve("page.json");
        CliRun.ok(services, "changes", "poll", root.toString(), "--cursor", cursor, "--out", out.toString());
        JsonNode page = Json.parse(Files.readString(out), "page");
        assertThat(page.path("blocks")).hasSize(1);
        assertThat(page.path("blocks").get(0).path("changes").get(0).path("op").asText()).isEqualTo("update");
        assertThat(page.path("caught_up").asBoolean()).isTrue();

        CliRun both = CliRun.run(services, "changes", "poll", root.toString(), "--cursor", cursor, "--start", "now");
        assertThat(both.code()).isNotZero();
        CliRun bad = CliRun.run(services, "changes", "poll", root.toString(), "--cursor", "garbage");
        assertThat(bad.code()).isEqualTo(OmnigraphCli.ERROR);
        assertThat(bad.err()).contains("change cursor rejected");

        Path baseline = dir.resolve("baseline.ndjson");
        CliRun.ok(services, "changes", "baseline", root.toString(), "--type", "Person", "--out", baseline.toString());
        var lines = Files.readAllLines(baseline);
        assertThat(lines).hasSize(3);
        String resume = Json.parse(lines.get(2), "record").path("baseline").path("resume_cursor").asText();
        JsonNode after = CliRun.ok(services, "changes", "poll", root.toString(), "--type", "Person", "--cursor", resume).json();
        assertThat(after.path("blocks")).isEmpty();
        assertThat(after.path("cursor").asText()).isNotBlank();
    }
}
