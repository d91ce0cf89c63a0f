package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import org.junit.jupiter.api.Test;

/**
 * Deeply nested queries and text that is not valid Unicode, sent over loopback to a real server: each is a 400
 * with a positioned or named error, the server keeps answering, and the graph's head does not move. Before the
 * bounds, the nested queries overflowed the parser's stack on the event loop and the connection closed unanswered.
 */
class HostileTextTest extends SeededSocialServer {
    private void assertHeadUnchanged() {
        Reply snapshot = http.get("/graphs/social/snapshot?branch=main");
        assertThat(snapshot.status()).as(snapshot.toString()).isEqualTo(200);
        assertThat(snapshot.json().path("graph_commit_id").asText()).isEqualTo(seeded);
    }

    private static void assertNestingError(Reply reply, int line) {
        assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
        JsonNode body = reply.json();
        assertThat(body.path("error").asText()).contains("nesting deeper than");
        assertThat(body.path("parse_error").path("line").asInt()).isEqualTo(line);
        assertThat(body.path("parse_error").path("column").asInt()).isPositive();
    }

    @Test
    void deeplyNestedQueriesAreAnsweredWithAPositioned400() {
        String nots = "query q() {\nmatch {\n$p: Person\n" + "not {\n".repeat(3_000) + "$p.age > 1\n"
                + "}\n".repeat(3_000) + "}\nreturn { $p.name }\n}";
        assertNestingError(http.postJson("/graphs/social/query", Json.object().put("query", nots)), 4 + 64);

        String list = "query q() {\nmatch { $p: Person { name: " + "[".repeat(20_000) + "]".repeat(20_000)
                + " } }\nreturn { $p }\n}";
        assertNestingError(http.postJson("/graphs/social/query", Json.object().put("query", list)), 2);

        String calls = "query q() {\nmatch { $p: Person }\nreturn { " + "count(".repeat(10_000) + "$p"
                + ")".repeat(10_000) + " }\n}";
        assertNestingError(http.postJson("/graphs/social/query", Json.object().put("query", calls)), 3);

        String mutation = "query m() {\ninsert Person { name: \"x\", age: " + "[".repeat(20_000) + "]".repeat(20_000)
                + " }\n}";
        assertNestingError(http.postJson("/graphs/social/mutate", Json.object().put("query", mutation)), 2);
        assertHeadUnchanged();
    }

    @Test
    void nulAndLoneSurrogatesAreRefusedNamingTheFieldAndChangeNothing() {
        // Raw JSON so that the escapes reach the server exactly as written.
        Reply nulParam = http.postJson("/graphs/social/mutate", "{\"query\":" + Json.text(Json.object()
                .put("q", HttpFixture.QUERIES).path("q")) + ",\"name\":\"addPerson\",\"params\":{\"name\":\"a\\u0000b\"}}");
        assertThat(nulParam.status()).as(nulParam.toString()).isEqualTo(400);
        assertThat(nulParam.json().path("error").asText()).startsWith("param $name contains a NUL character (U+0000)");

        Reply loneParam = http.postJson("/graphs/social/mutate", "{\"query\":" + Json.text(Json.object()
                .put("q", HttpFixture.QUERIES).path("q")) + ",\"name\":\"addPerson\",\"params\":{\"name\":\"\\ud800\"}}");
        assertThat(loneParam.status()).as(loneParam.toString()).isEqualTo(400);
        assertThat(loneParam.json().path("error").asText()).startsWith("param $name contains an unpaired surrogate (U+D800)");

        Reply literal = http.postJson("/graphs/social/mutate",
                "{\"query\":\"query m() {\\n insert Person { name: \\\"x\\u0000\\\" }\\n}\"}");
        assertThat(literal.status()).as(literal.toString()).isEqualTo(400);
        assertThat(literal.json().path("parse_error").path("line").asInt()).isEqualTo(2);
        assertThat(literal.json().path("parse_error").path("column").asInt()).isEqualTo(26);

        // The NDJSON text carries a JSON escape of a lone high surrogate on its second line.
        String ndjson = "{\"type\":\"Person\",\"data\":{\"name\":\"Cy\"}}\n"
                + "{\"type\":\"Person\",\"data\":{\"name\":\"Di\",\"bio\":\"\\ud800\"}}\n";
        Reply load = http.postJson("/graphs/social/load", Json.object().put("mode", "append").put("data", ndjson));
        assertThat(load.status()).as(load.toString()).isEqualTo(400);
        assertThat(load.json().path("parse_error").path("line").asInt()).isEqualTo(2);
        assertThat(load.json().path("parse_error").path("subject").asText()).isEqualTo("data.bio");
        assertHeadUnchanged();
    }
}
