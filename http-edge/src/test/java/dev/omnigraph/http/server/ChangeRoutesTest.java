package dev.omnigraph.http.server;

import static dev.omnigraph.http.testing.HttpFixture.PEOPLE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The change routes over loopback HTTP on a real graph: field names as the reference spells them, paging, refusals. */
class ChangeRoutesTest {
    @TempDir
    Path dir;
    HttpFixture http;
    String loaded;

    @BeforeEach
    void setUp() {
        http = new HttpFixture();
        http.init(dir.resolve("social")).close();
        http.start(dir);
        Reply reply = http.postJson("/graphs/social/load", Json.object().put("data", PEOPLE).put("mode", "append"));
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        loaded = reply.json().path("commit").path("graph_commit_id").asText();
    }

    @AfterEach
    void tearDown() {
        http.close();
    }

    String mutate(String name, String params) {
        Reply reply = http.postJson("/graphs/social/mutate", HttpFixture.mutation(name, params));
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        return reply.json().path("commit").path("graph_commit_id").asText();
    }

    static String enc(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    @Test
    void aCommitsChangesInTheReferenceShape() {
        Reply reply = http.get("/graphs/social/commits/" + loaded + "/changes");
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        JsonNode body = reply.json();
        assertThat(body.path("cause").path("graph_commit_id").asText()).isEqualTo(loaded);
        assertThat(body.path("cause").path("authored_branch").asText()).isEqualTo("main");
        assertThat(body.path("cause").has("parent_commit_id")).isTrue();
        assertThat(body.path("cause").path("authored_at").asLong()).isPositive();
        assertThat(body.has("next_page_token")).isFalse();
        JsonNode changes = body.path("changes");
        assertThat(changes).hasSize(5);
        JsonNode knows = changes.get(0);
        assertThat(knows.path("kind").asText()).isEqualTo("edge");
        assertThat(knows.path("type").path("name").asText()).isEqualTo("Knows");
        assertThat(knows.path("type").path("id").asText()).isNotBlank();
        assertThat(knows.path("id").asText()).isEqualTo("k1");
        assertThat(knows.path("op").asText()).isEqualTo("insert");
        assertThat(knows.has("before")).isFalse();
        assertThat(knows.path("after").path("endpoints").path("from").asText()).isEqualTo("Ada");
        assertThat(knows.path("after").path("endpoints").path("to").asText()).isEqualTo("Bob");
        assertThat(knows.path("after").path("properties").path("since").asText()).isEqualTo("2020-01-02");

        String update = mutate("setAge", "{\"name\":\"Ada\",\"age\":37}");
        JsonNode updated = http.get("/graphs/social/commits/" + update + "/changes").json().path("changes");
        assertThat(updated).hasSize(1);
        assertThat(updated.get(0).path("op").asText()).isEqualTo("update");
        assertThat(updated.get(0).path("before").path("properties").path("age").asInt()).isEqualTo(36);
        assertThat(updated.get(0).path("after").path("properties").path("age").asInt()).isEqualTo(37);
        assertThat(updated.get(0).path("after").path("properties").has("bio")).isTrue(); // null keeps its key
        assertThat(updated.get(0).path("after").has("endpoints")).isFalse();
    }

    @Test
    void filtersAndPagesOverHttp() {
        JsonNode edges = http.get("/graphs/social/commits/" + loaded + "/changes?kind=edge").json().path("changes");
        assertThat(edges).hasSize(2);
        JsonNode typed = http.get("/graphs/social/commits/" + loaded + "/changes?type=Person&type=Company&op=insert")
                .json().path("changes");
        assertThat(typed).hasSize(3);
        assertThat(http.get("/graphs/social/commits/" + loaded + "/changes?op=delete").json().path("changes")).isEmpty();

        List<String> ids = new ArrayList<>();
        String path = "/graphs/social/commits/" + loaded + "/changes?limit=2";
        while (true) {
            JsonNode page = http.get(path).json();
            page.path("changes").forEach(c -> ids.add(c.path("id").asText()));
            if (!page.has("next_page_token")) break;
            path = "/graphs/social/commits/" + loaded + "/changes?limit=2&page_token=" + enc(page.path("next_page_token").asText());
        }
        assertThat(ids).containsExactly("k1", "w1", "Acme", "Ada", "Bob");
    }

    @Test
    void refusalsAreTypedBodies() {
        Reply unknown = http.get("/graphs/social/commits/01JNOSUCHCOMMIT00000000000/changes");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.json().path("code").asText()).isEqualTo("not_found");

        String genesis = http.get("/graphs/social/commits").json().path("commits").get(1).path("graph_commit_id").asText();
        Reply parentless = http.get("/graphs/social/commits/" + genesis + "/changes");
        assertThat(parentless.status()).isEqualTo(409);
        assertThat(parentless.json().path("code").asText()).isEqualTo("conflict");
        assertThat(parentless.json().path("change_diff_refusal").path("reason").asText()).isEqualTo("parentless_commit");
        assertThat(parentless.json().path("change_diff_refusal").path("graph_commit_id").asText()).isEqualTo(genesis);

        assertThat(http.get("/graphs/social/commits/" + loaded + "/changes?colour=red").status()).isEqualTo(400);
        assertThat(http.get("/graphs/social/commits/" + loaded + "/changes?kind=vertex").status()).isEqualTo(400);
        assertThat(http.get("/graphs/social/commits/" + loaded + "/changes?limit=ten").status()).isEqualTo(400);
        Reply tooMany = http.get("/graphs/social/commits/" + loaded + "/changes?limit=9000");
        assertThat(tooMany.status()).isEqualTo(413);
        assertThat(tooMany.json().path("resource_limit").path("limit").asInt()).isEqualTo(8192);
        Reply badToken = http.get("/graphs/social/commits/" + loaded + "/changes?page_token=nope");
        assertThat(badToken.status()).isEqualTo(400);
        assertThat(badToken.json().path("error").asText()).contains("page_token rejected");

        Reply badCursor = http.get("/graphs/social/changes?cursor=not-a-cursor");
        assertThat(badCursor.status()).isEqualTo(400);
        assertThat(badCursor.json().path("code").asText()).isEqualTo("bad_request");
        assertThat(badCursor.json().path("error").asText()).startsWith("change cursor rejected: ");
        assertThat(http.get("/graphs/social/changes?cursor=x&start=now").status()).isEqualTo(400);
        assertThat(http.get("/graphs/social/changes?start=tomorrow").status()).isEqualTo(400);
        assertThat(http.get("/graphs/social/changes?branch=nope").status()).isEqualTo(404);
    }

    @Test
    void theFeedResumesFromItsCursorAcrossWritesAndAServerRestart() {
        JsonNode now = http.get("/graphs/social/changes").json();
        assertThat(now.path("blocks")).isEmpty();
        assertThat(now.path("caught_up").asBoolean()).isTrue();
        String cursor = now.path("cursor").asText();

        String c1 = mutate("addPerson", "{\"name\":\"Cy\",\"age\":3}");
        String c2 = mutate("setAge", "{\"name\":\"Cy\",\"age\":4}");
        JsonNode first = http.get("/graphs/social/changes?cursor=" + enc(cursor)).json();
        assertThat(first.path("blocks")).hasSize(2);
        assertThat(first.path("blocks").get(0).path("cause").path("graph_commit_id").asText()).isEqualTo(c1);
        assertThat(first.path("blocks").get(0).path("changes").get(0).path("op").asText()).isEqualTo("insert");
        assertThat(first.path("blocks").get(1).path("cause").path("graph_commit_id").asText()).isEqualTo(c2);
        assertThat(first.path("blocks").get(1).path("changes").get(0).path("op").asText()).isEqualTo("update");
        assertThat(first.path("caught_up").asBoolean()).isTrue();
        String next = first.path("cursor").asText();

        http.server.shutdown().block(http.server.shutdownBound());
        http.start(dir);
        String c3 = mutate("knows", "{\"a\":\"Cy\",\"b\":\"Ada\"}");
        JsonNode second = http.get("/graphs/social/changes?cursor=" + enc(next)).json();
        assertThat(second.path("blocks")).hasSize(1);
        assertThat(second.path("blocks").get(0).path("cause").path("graph_commit_id").asText()).isEqualTo(c3);
        assertThat(http.get("/graphs/social/changes?cursor=" + enc(second.path("cursor").asText())).json()
                .path("blocks")).isEmpty();

        // The same history in pages of one change: a page token continues, only the last page carries the cursor.
        List<String> seen = new ArrayList<>();
        String path = "/graphs/social/changes?limit=1&cursor=" + enc(cursor);
        while (true) {
            JsonNode page = http.get(path).json();
            page.path("blocks").forEach(b -> b.path("changes").forEach(c ->
                    seen.add(b.path("cause").path("graph_commit_id").asText() + "/" + c.path("op").asText())));
            if (page.has("cursor")) {
                assertThat(page.has("next_page_token")).isFalse();
                break;
            }
            assertThat(page.has("caught_up")).isFalse();
            path = "/graphs/social/changes?limit=1&page_token=" + enc(page.path("next_page_token").asText());
        }
        assertThat(seen).containsExactly(c1 + "/insert", c2 + "/update", c3 + "/insert");
    }

    @Test
    void baselineStreamsNdjsonAndAResumeCursor() {
        Reply reply = http.postJson("/graphs/social/changes/baseline", "{\"kind\":[\"node\"]}");
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        String[] lines = reply.body().strip().split("\n");
        assertThat(lines).hasSize(4); // Ada, Bob, Acme, then the baseline record
        JsonNode last = Json.parse(lines[3], "baseline").path("baseline");
        assertThat(last.path("snapshot_commit_id").asText()).isEqualTo(loaded);
        String resume = last.path("resume_cursor").asText();
        String c1 = mutate("setAge", "{\"name\":\"Bob\",\"age\":42}");
        JsonNode page = http.get("/graphs/social/changes?kind=node&cursor=" + enc(resume)).json();
        assertThat(page.path("blocks")).hasSize(1);
        assertThat(page.path("blocks").get(0).path("cause").path("graph_commit_id").asText()).isEqualTo(c1);
        // The cursor is bound to its filter.
        assertThat(http.get("/graphs/social/changes?cursor=" + enc(resume)).status()).isEqualTo(400);
        assertThat(http.postJson("/graphs/social/changes/baseline", "{\"colour\":1}").status()).isEqualTo(400);
    }
}
