package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.query.QueryCache;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import org.junit.jupiter.api.Test;

/**
 * A {@code /query} whose text was compiled before is served on the event loop up to its first storage call, with
 * the answer a cold one gets; after a schema apply the same text is checked against the new schema (a property
 * the old schema lacked is read, one it dropped is refused), warm or not.
 */
class WarmQueryRoutesTest extends SeededSocialServer {
    @Test
    void warmAndColdQueriesAnswerAlikeAcrossASchemaApply() {
        // A text no other test sends, so the first request is cold.
        String source = "// warm-query test " + System.nanoTime() + "\n" + HttpFixture.QUERIES
                + "query bios() { match { $p: Person } return { $p.name, $p.bio } order { $p.name } }\n";
        assertThat(QueryCache.parsedBefore(source)).isFalse();
        Reply cold = people(source, "people");
        assertThat(QueryCache.parsedBefore(source)).isTrue();
        Reply warm = people(source, "people");
        assertThat(warm.status()).as(warm.toString()).isEqualTo(200);
        assertThat(warm.body()).isEqualTo(cold.body());
        assertThat(warm.json().path("row_count").asInt()).isEqualTo(2);

        Reply mutation = people(source, "addPerson");
        assertThat(mutation.status()).as("a warm mutation text is still refused on /query").isEqualTo(400);

        Reply applied = http.postJson(G + "/schema/apply", Json.object().put("schema_source",
                HttpFixture.SCHEMA.replace("    bio: String?\n", "    bio: String?\n    email: String?\n")));
        assertThat(applied.status()).as(applied.toString()).isEqualTo(200);
        String withEmail = source + "query emails() { match { $p: Person } return { $p.name, $p.email } order { $p.name } }\n";
        people(withEmail, "emails"); // cold under the new schema
        Reply emails = people(withEmail, "emails");
        assertThat(emails.status()).as(emails.toString()).isEqualTo(200);
        assertThat(emails.json().path("rows").get(0).path(emails.json().path("columns").get(1).asText()).isNull()).isTrue();
        assertThat(people(source, "people").body()).isEqualTo(cold.body().replace(seeded, http.get(G + "/snapshot")
                .json().path("graph_commit_id").asText()));

        Reply narrowed = http.postJson(G + "/schema/apply", Json.object().put("schema_source",
                HttpFixture.SCHEMA.replace("    bio: String?\n", "    email: String?\n")).put("allow_data_loss", true));
        assertThat(narrowed.status()).as(narrowed.toString()).isEqualTo(200);
        Reply gone = people(source, "bios");
        assertThat(gone.status()).as("bio was dropped: the warm text is checked again").isEqualTo(400);
    }

    private Reply people(String source, String name) {
        return http.postJson(G + "/query", Json.object().put("query", source).put("name", name));
    }
}
