package dev.omnigraph.http.server;

import static dev.omnigraph.http.testing.HttpFixture.PEOPLE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /indexes/ensure} over real HTTP on loopback: after the seeding load (which built the key indexes) a
 * no-op; after a schema change adding {@code @index} it builds exactly that index, then a no-op; on a branch;
 * refusals.
 */
class IndexRoutesTest extends SeededSocialServer {

    /** Adds {@code @index} to Person's {@code age}: only an ensure builds it. */
    void indexAge() {
        Reply applied = http.postJson(G + "/schema/apply", Json.object().put("schema_source",
                HttpFixture.SCHEMA.replace("age: I32?", "age: I32? @index")));
        assertThat(applied.status()).as(applied.toString()).isEqualTo(200);
    }

    @Test
    void ensureAfterTheLoadIsANoOpAndAfterASchemaChangeBuildsExactlyTheNewIndex() {
        Reply afterLoad = http.postJson(G + "/indexes/ensure", "{}");
        assertThat(afterLoad.status()).as(afterLoad.toString()).isEqualTo(200);
        assertThat(afterLoad.json().path("branch").asText()).isEqualTo("main");
        assertThat(afterLoad.json().path("built").isEmpty()).as("the load built the key indexes").isTrue();
        assertThat(afterLoad.json().path("commit").isNull()).isTrue();

        indexAge();
        Reply first = http.postJson(G + "/indexes/ensure", "{}");
        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        assertThat(first.json().path("built").toString()).isEqualTo("{\"node:Person\":[\"og_btree_age\"]}");
        assertThat(first.json().path("commit").path("graph_commit_id").asText()).isNotEmpty();

        Reply again = http.postJson(G + "/indexes/ensure", "{\"branch\":\"main\"}");
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.json().path("built").isEmpty()).isTrue();
        assertThat(again.json().path("commit").isNull()).isTrue();
    }

    @Test
    void onABranchAndItsRefusals() {
        indexAge();
        assertThat(http.postJson(G + "/branches", "{\"name\":\"dev\"}").status()).isEqualTo(200);
        Reply onDev = http.postJson(G + "/indexes/ensure", "{\"branch\":\"dev\"}");
        assertThat(onDev.status()).as(onDev.toString()).isEqualTo(200);
        assertThat(onDev.json().path("commit").path("graph_branch").asText()).isEqualTo("dev");

        assertThat(http.postJson(G + "/indexes/ensure", "{\"branch\":\"ghost\"}").status()).isEqualTo(404);
        Reply unknown = http.postJson(G + "/indexes/ensure", "{\"table\":\"x\"}");
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.json().path("error").asText()).contains("unknown field 'table'");
        assertThat(http.postJson(G + "/indexes/ensure", "{\"branch\":7}").status()).isEqualTo(400);
    }
}
