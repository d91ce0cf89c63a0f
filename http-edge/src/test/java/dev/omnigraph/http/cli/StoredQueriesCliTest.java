package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.StoredQueries;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code omnigraph queries add|list|run|remove} on a real graph in a temp dir. */
class StoredQueriesCliTest extends SeededCliGraph {
    CliRun run(String... args) {
        return CliRun.run(services, args);
    }

    CliRun ok(String... args) {
        return CliRun.ok(services, args);
    }

    @Test
    void registerListRunAndRemove() throws Exception {
        Path file = Files.writeString(dir.resolve("social.gq"), HttpFixture.QUERIES);
        assertThat(ok("queries", "add", root.toString(), file.toString()).out())
                .contains("registered addPerson, setAge, knows, people");
        assertThat(root.resolve(StoredQueries.DIRECTORY).resolve("people.gq")).exists();

        JsonNode listed = Json.parse(ok("queries", "list", root.toString(), "--json").out(), "stdout");
        assertThat(listed.path("queries")).hasSize(4);
        JsonNode add = listed.path("queries").get(0);
        assertThat(add.path("name").asText()).isEqualTo("addPerson");
        assertThat(add.path("mutation").asBoolean()).isTrue();
        assertThat(add.path("params").get(1).path("nullable").asBoolean()).isTrue();
        assertThat(ok("queries", "list", root.toString()).out()).contains("people() query").contains("(4 stored queries)");

        JsonNode wrote = Json.parse(ok("queries", "run", "addPerson", root.toString(), "--params",
                "{\"name\":\"Cy\"}", "--as", "act-q", "--json").out(), "stdout");
        assertThat(wrote.path("affected_nodes").asInt()).isEqualTo(1);
        assertThat(wrote.path("commit").path("actor_id").asText()).isEqualTo("act-q");

        JsonNode read = Json.parse(ok("queries", "run", "people", root.toString(), "--json").out(), "stdout");
        assertThat(read.path("row_count").asInt()).isEqualTo(3);
        assertThat(read.path("graph_commit_id").asText()).isEqualTo(wrote.path("commit").path("graph_commit_id").asText());

        ok("queries", "remove", root.toString(), "people");
        CliRun gone = run("queries", "run", "people", root.toString());
        assertThat(gone.code()).isEqualTo(1);
        assertThat(gone.err()).startsWith("error[not_found]: ").contains("no stored query 'people'");
    }

    @Test
    void aQueryThatDoesNotTypeCheckRegistersNothing() throws Exception {
        Path file = Files.writeString(dir.resolve("bad.gq"), """
                query good() { match { $p: Person } return { $p.name } }
                query bad() { match { $p: Person } return { $p.height } }
                """);
        CliRun refused = run("queries", "add", root.toString(), file.toString());
        assertThat(refused.code()).isEqualTo(1);
        assertThat(refused.err()).contains("height");
        assertThat(root.resolve(StoredQueries.DIRECTORY).resolve("good.gq")).doesNotExist();
        assertThat(run("queries", "remove", root.toString(), "../x").err()).startsWith("error[not_found]: ");
        Path big = Files.createDirectories(root.resolve(StoredQueries.DIRECTORY)).resolve("big.gq");
        Files.write(big, new byte[(4 << 20) + 1]);
        CliRun tooBig = run("queries", "run", "big", root.toString());
        assertThat(tooBig.code()).isEqualTo(1);
        assertThat(tooBig.err()).startsWith("error[bad_request]: ").contains("'big' is larger than");
    }
}
