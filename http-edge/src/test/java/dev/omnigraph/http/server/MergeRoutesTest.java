package dev.omnigraph.http.server;

import static dev.omnigraph.http.testing.HttpFixture.PEOPLE;
import static dev.omnigraph.http.testing.HttpFixture.mutation;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code POST /branches/merge} over real HTTP on loopback: outcomes, the 409 conflict body, bad requests. */
class MergeRoutesTest extends SeededSocialServer {
    @BeforeEach
    void setUp() {
        assertThat(http.postJson(G + "/branches", "{\"name\":\"feature\"}").status()).isEqualTo(200);
    }

    void setAge(String branch, String name, int age) {
        JsonNode update = ((ObjectNode) mutation("setAge", "{\"name\":\"" + name + "\",\"age\":" + age + "}")).put("branch", branch);
        Reply reply = http.postJson(G + "/mutate", update);
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
    }

    @Test
    void fastForwardThenUpToDateThenDeleteTheSource() {
        setAge("feature", "Ada", 50);
        Reply merged = http.postJson(G + "/branches/merge", "{\"source\":\"feature\"}");
        assertThat(merged.status()).as(merged.toString()).isEqualTo(200);
        JsonNode body = merged.json();
        assertThat(body.path("source").asText()).isEqualTo("feature");
        assertThat(body.path("target").asText()).isEqualTo("main");
        assertThat(body.path("outcome").asText()).isEqualTo("fast_forward");
        assertThat(body.path("commit").path("merged_parent_commit_id").isTextual()).isTrue();
        assertThat(body.has("branch_deleted")).isFalse();

        Reply again = http.postJson(G + "/branches/merge",
                "{\"source\":\"feature\",\"target\":\"main\",\"delete_branch\":true}");
        assertThat(again.status()).as(again.toString()).isEqualTo(200);
        assertThat(again.json().path("outcome").asText()).isEqualTo("already_up_to_date");
        assertThat(again.json().path("commit").isNull()).isTrue();
        assertThat(again.json().path("branch_deleted").asBoolean()).isTrue();
        assertThat(http.get(G + "/branches").json().path("branches").toString()).isEqualTo("[\"main\"]");
    }

    @Test
    void conflictsAre409WithEveryConflictAndNothingPublished() {
        setAge("feature", "Ada", 50);
        setAge("main", "Ada", 51);
        setAge("feature", "Bob", 60);
        setAge("main", "Bob", 61);
        String head = http.get(G + "/commits").json().path("commits").get(0).path("graph_commit_id").asText();

        Reply refused = http.postJson(G + "/branches/merge", "{\"source\":\"feature\"}");

        assertThat(refused.status()).as(refused.toString()).isEqualTo(409);
        JsonNode body = refused.json();
        assertThat(body.path("code").asText()).isEqualTo("conflict");
        assertThat(body.path("error").asText()).startsWith("merge conflicts: node type 'Person', entity id 'Ada' (divergent_update)");
        assertThat(body.path("merge_conflicts")).hasSize(2);
        JsonNode first = body.path("merge_conflicts").get(0);
        assertThat(first.path("entity_kind").asText()).isEqualTo("node");
        assertThat(first.path("type_name").asText()).isEqualTo("Person");
        assertThat(first.path("entity_id").asText()).isEqualTo("Ada");
        assertThat(first.path("kind").asText()).isEqualTo("divergent_update");
        assertThat(http.get(G + "/commits").json().path("commits").get(0).path("graph_commit_id").asText()).isEqualTo(head);
    }

    @Test
    void badRequestsAreRefusedBeforeAnything() {
        assertThat(http.postJson(G + "/branches/merge", "{}").status()).isEqualTo(400);
        assertThat(http.postJson(G + "/branches/merge", "{\"source\":\"feature\",\"into\":\"x\"}").status()).isEqualTo(400);
        assertThat(http.postJson(G + "/branches/merge", "{\"source\":\"feature\",\"delete_branch\":\"yes\"}").status()).isEqualTo(400);
        assertThat(http.postJson(G + "/branches/merge", "{\"source\":\"main\"}").status()).isEqualTo(400);
        assertThat(http.postJson(G + "/branches/merge", "{\"source\":\"ghost\"}").status()).isEqualTo(404);
    }
}
