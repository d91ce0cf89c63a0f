package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.wire.Json;
import org.junit.jupiter.api.Test;

/** Filters handed to Lance through the CLI: huge pushed-down conjunctions and supplementary-plane text. */
class CliFilterTest extends SeededCliGraph {
    private String ok(String... args) {
        return CliRun.ok(services, args).out();
    }

    @Test
    void tenThousandPushedDownConditionsAreAnswered() {
        StringBuilder q = new StringBuilder("query many() { match { $p: Person ");
        for (int k = 0; k < 10_000; k++) q.append("$p.name != \"z").append(k).append("\" ");
        q.append("$p.age > 40 } return { $p.name } }");
        JsonNode json = Json.parse(ok("query", "many", root.toString(), "-e", q.toString(), "--json"), "stdout");
        assertThat(json.path("row_count").asInt()).isEqualTo(1);
        assertThat(json.toString()).contains("Bob").doesNotContain("Ada");
    }

    @Test
    void anEmojiKeyIsInsertedAndFound() {
        ok("mutate", "addPerson", root.toString(), "-e", HttpFixture.QUERIES, "--params",
                "{\"name\":\"emoji \uD83D\uDE00\",\"age\":7}");
        String byKey = "query one($n: String) { match { $p: Person { name: $n } } return { $p.name, $p.age } }";
        JsonNode json = Json.parse(ok("query", "one", root.toString(), "-e", byKey, "--params",
                "{\"n\":\"emoji \uD83D\uDE00\"}", "--json"), "stdout");
        assertThat(json.path("row_count").asInt()).isEqualTo(1);
        assertThat(json.toString()).contains("emoji \uD83D\uDE00");
    }
}
