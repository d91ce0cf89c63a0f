package dev.omnigraph.http.server;

import static dev.omnigraph.http.testing.HttpFixture.PEOPLE;
import static dev.omnigraph.http.testing.HttpFixture.mutation;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.testing.RawHttp;
import dev.omnigraph.http.wire.Json;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** {@code /branches} over real HTTP on loopback: create, list, write on a branch, delete, and every refusal. */
class BranchRoutesTest extends SeededSocialServer {

    Reply create(String body) {
        return http.postJson(G + "/branches", body);
    }

    Reply delete(String encodedName) {
        return http.send(HttpMethod.DELETE, G + "/branches/" + encodedName, Map.of(), Mono.empty());
    }

    List<String> branches() {
        List<String> names = new ArrayList<>();
        http.get(G + "/branches").json().path("branches").forEach(n -> names.add(n.asText()));
        return names;
    }

    List<String> people(String branch) {
        Reply reply = http.postJson(G + "/query", Json.object().put("query", HttpFixture.QUERIES).put("name", "people")
                .put("branch", branch));
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        List<String> names = new ArrayList<>();
        reply.json().path("rows").forEach(row -> names.add(row.path(0).asText(row.path("p.name").asText())));
        return names;
    }

    @Test
    void createWriteReadAndDeleteABranch() {
        Reply created = create("{\"name\":\"team/a\"}");
        assertThat(created.status()).as(created.toString()).isEqualTo(200);
        assertThat(created.json().path("name").asText()).isEqualTo("team/a");
        assertThat(created.json().path("from").asText()).isEqualTo("main");
        assertThat(created.json().path("uri").asText()).startsWith("file:");
        assertThat(branches()).containsExactly("main", "team/a");

        JsonNode insert = ((com.fasterxml.jackson.databind.node.ObjectNode) mutation("addPerson", "{\"name\":\"Cy\",\"age\":3}")).put("branch", "team/a");
        Reply mutated = http.postJson(G + "/mutate", insert);
        assertThat(mutated.status()).as(mutated.toString()).isEqualTo(200);
        assertThat(mutated.json().path("commit").path("graph_branch").asText()).isEqualTo("team/a");
        assertThat(people("team/a")).contains("Ada", "Bob", "Cy");
        assertThat(people("main")).containsExactly("Ada", "Bob");

        Reply snapshot = http.get(G + "/snapshot?branch=team%2Fa");
        assertThat(snapshot.status()).isEqualTo(200);
        assertThat(snapshot.json().path("graph_branch").asText()).isEqualTo("team/a");
        Reply commits = http.get(G + "/commits?branch=team%2Fa");
        assertThat(commits.json().path("commits").get(0).path("graph_branch").asText()).isEqualTo("team/a");

        // A commit id is a fork point too.
        String commit = mutated.json().path("commit").path("graph_commit_id").asText();
        Reply fromCommit = create("{\"name\":\"pinned\",\"from\":\"" + commit + "\"}");
        assertThat(fromCommit.status()).as(fromCommit.toString()).isEqualTo(200);
        assertThat(people("pinned")).contains("Cy");

        Reply refused = delete("team%2Fa");
        assertThat(refused.status()).as("pinned reads team/a's fork").isEqualTo(409);
        assertThat(refused.json().path("error").asText()).contains("pinned");
        assertThat(delete("pinned").status()).isEqualTo(200);
        Reply deleted = delete("team%2Fa");
        assertThat(deleted.status()).as(deleted.toString()).isEqualTo(200);
        assertThat(deleted.json().path("name").asText()).isEqualTo("team/a");
        assertThat(branches()).containsExactly("main");
    }

    @Test
    void refusalsAreTypedAndChangeNothing() {
        assertThat(create("{\"name\":\"dup\"}").status()).isEqualTo(200);
        Reply exists = create("{\"name\":\"dup\"}");
        assertThat(exists.status()).isEqualTo(409);
        assertThat(exists.json().path("code").asText()).isEqualTo("conflict");
        assertThat(exists.json().path("error").asText()).contains("already exists");

        for (String body : List.of("{\"name\":\"main\"}", "{\"name\":\"..\"}", "{\"name\":\"a/../b\"}",
                "{\"name\":\"__manifest\"}", "{\"name\":\"d\"}", "{\"name\":\"dupe\"}", "{\"name\":\"\"}",
                "{\"name\":\"caf\\u00e9\"}", "{\"name\":\"ctl\\u0001\"}", "{\"name\":\"" + "x".repeat(300) + "\"}",
                "{\"name\":7}", "{}", "{\"name\":\"ok\",\"extra\":1}", "[1]")) {
            Reply bad = create(body);
            assertThat(bad.status()).as(body + " -> " + bad).isEqualTo(400);
            assertThat(bad.json().path("code").asText()).isEqualTo("bad_request");
        }
        Reply noSource = create("{\"name\":\"x\",\"from\":\"nowhere\"}");
        assertThat(noSource.status()).isEqualTo(404);
        assertThat(noSource.json().path("code").asText()).isEqualTo("not_found");

        assertThat(delete("ghost").status()).isEqualTo(404);
        assertThat(delete("main").status()).isEqualTo(400);
        assertThat(delete("..%2Fetc").status()).isEqualTo(400);
        assertThat(branches()).containsExactly("main", "dup");
        assertThat(dir.resolve("social/__manifest/tree").toFile().list()).containsExactly("dup");
    }

    @Test
    void loadFromCreatesTheBranchFirst() {
        Reply loaded = http.send(HttpMethod.POST, G + "/load/ndjson?branch=imports&from=main&mode=append",
                Map.of("Content-Type", "application/x-ndjson"),
                HttpFixture.text("{\"type\":\"Person\",\"data\":{\"name\":\"Zed\",\"age\":9}}\n"));
        assertThat(loaded.status()).as(loaded.toString()).isEqualTo(200);
        assertThat(loaded.json().path("branch_created").asBoolean()).isTrue();
        assertThat(loaded.json().path("base_branch").asText()).isEqualTo("main");
        assertThat(people("imports")).contains("Zed");
        assertThat(people("main")).doesNotContain("Zed");

        Reply again = http.postJson(G + "/load", Json.object().put("data", "{\"type\":\"Person\",\"data\":{\"name\":\"Yan\"}}\n")
                .put("branch", "imports").put("from", "main").put("mode", "append"));
        assertThat(again.status()).as(again.toString()).isEqualTo(200);
        assertThat(again.json().path("branch_created").asBoolean()).isFalse();

        Reply missing = http.postJson(G + "/load", Json.object().put("data", "{\"type\":\"Person\",\"data\":{\"name\":\"Q\"}}\n")
                .put("branch", "nobranch").put("mode", "append"));
        assertThat(missing.status()).isEqualTo(404);
    }

    @Test
    void aRawDeleteWithAnEncodedSlashNamesOneBranch() throws Exception {
        assertThat(create("{\"name\":\"team/x\"}").status()).isEqualTo(200);
        try (RawHttp raw = RawHttp.connect("127.0.0.1", http.server.port(), java.time.Duration.ofSeconds(60))) {
            RawHttp.Response response = raw.exchange(RawHttp.request("DELETE", G + "/branches/team%2Fx", null, null));
            assertThat(response.status()).as(response.toString()).isEqualTo(200);
        }
        assertThat(branches()).containsExactly("main");
    }
}
