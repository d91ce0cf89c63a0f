package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.testing.RawHttp;
import dev.omnigraph.http.wire.Json;
import io.netty.handler.codec.http.HttpMethod;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Inputs another client, or a hostile one, sends that the other edge tests do not: malformed chunked framing,
 * JSON that one parser reads differently from another (trailing content, duplicate keys, a field and its alias
 * both given), repeated or undecodable query parameters, HEAD, and Jackson's own wording. Each is a typed JSON
 * error (every body passes the fixture's audit: request id, no paths, no stack), the graph's head does not move,
 * and the server keeps answering.
 */
class HostileInputsTest extends SeededSocialServer {
    private static final Duration GENEROUS = Duration.ofSeconds(30);
    private static final String READ = "query q() { match { $p: Person } return { $p.name } }";

    private void assertHeadUnchanged() {
        Reply snapshot = http.get(G + "/snapshot?branch=main");
        assertThat(snapshot.status()).as(snapshot.toString()).isEqualTo(200);
        assertThat(snapshot.json().path("graph_commit_id").asText()).isEqualTo(seeded);
    }

    private RawHttp connect() throws Exception {
        return RawHttp.connect(http.server.host(), http.server.port(), GENEROUS);
    }

    private static void assertBadRequest(Reply reply, String message) {
        assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
        assertThat(reply.json().path("code").asText()).isEqualTo("bad_request");
        assertThat(reply.json().path("error").asText()).contains(message);
    }

    @Test
    void malformedChunkedFramingIsAJson400AndTheConnectionCloses() throws Exception {
        String chunked = "Transfer-Encoding: chunked\r\nHost: localhost\r\n\r\n";
        try (RawHttp c = connect()) {
            RawHttp.Response r = c.exchange("POST " + G + "/query HTTP/1.1\r\nContent-Type: application/json\r\n"
                    + chunked + "zz\r\n");
            assertThat(r.status()).isEqualTo(400);
            JsonNode body = Json.parse(r.body(), "response");
            assertThat(body.path("code").asText()).isEqualTo("bad_request");
            assertThat(body.path("error").asText()).startsWith("malformed HTTP request body");
            assertThat(body.path("request_id").asText()).isEqualTo(r.header(Exchange.REQUEST_ID));
            assertThat(c.awaitClosed()).isTrue();
        }
        try (RawHttp c = connect()) {
            // A valid first chunk already on its way into the engine, then a chunk size that overflows.
            String line = "{\"type\":\"Person\",\"data\":{\"name\":\"Cy\"}}\n";
            RawHttp.Response r = c.exchange("POST " + G + "/load/ndjson?mode=append HTTP/1.1\r\n"
                    + "Content-Type: application/x-ndjson\r\n" + chunked
                    + Integer.toHexString(line.length()) + "\r\n" + line + "\r\nFFFFFFFFFFFF\r\n");
            assertThat(r.status()).isEqualTo(400);
            assertThat(Json.parse(r.body(), "response").path("error").asText()).startsWith("malformed HTTP request body");
            assertThat(c.awaitClosed()).isTrue();
        }
        assertHeadUnchanged();
    }

    @Test
    void aBrokenBodyBehindAPipelinedRequestLeavesThatRequestsAnswerWhole() throws Exception {
        String chunked = "Transfer-Encoding: chunked\r\nHost: localhost\r\n\r\n";
        try (RawHttp c = connect()) {
            // Both requests in one write: the second's broken chunk is decoded while the first is still unanswered.
            c.write("GET " + G + "/snapshot?branch=main HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    + "POST " + G + "/query HTTP/1.1\r\nContent-Type: application/json\r\n" + chunked + "zz\r\n");
            RawHttp.Response first = c.read();
            assertThat(first.status()).as(first.toString()).isEqualTo(200);
            assertThat(Json.parse(first.body(), "response").path("graph_commit_id").asText()).isEqualTo(seeded);
        }
        assertHeadUnchanged();
    }

    @Test
    void aBrokenBodyAfterAnInterim100ContinueIsStillAJson400() throws Exception {
        try (RawHttp c = connect()) {
            c.write("POST " + G + "/query HTTP/1.1\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n"
                    + "Transfer-Encoding: chunked\r\nHost: localhost\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(100);
            RawHttp.Response r = c.exchange("zz\r\n");
            assertThat(r.status()).isEqualTo(400);
            assertThat(Json.parse(r.body(), "response").path("error").asText()).startsWith("malformed HTTP request body");
            assertThat(c.awaitClosed()).isTrue();
        }
    }

    @Test
    void anHttp2RequestLineIsAJson400() throws Exception {
        for (String head : new String[] {"GET /healthz HTTP/2.0\r\nHost: localhost\r\n\r\n",
                "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"}) {
            try (RawHttp c = connect()) {
                RawHttp.Response r = c.exchange(head);
                assertThat(r.status()).as(head).isEqualTo(400);
                assertThat(Json.parse(r.body(), "response").path("error").asText()).as(head).contains("HTTP/1.1");
                assertThat(c.awaitClosed()).isTrue();
            }
        }
        assertThat(http.get("/healthz").status()).isEqualTo(200);
    }

    @Test
    void jsonThatParsersReadDifferentlyIsRefusedWithItsPosition() {
        String query = Json.text(Json.object().put("q", READ).path("q"));
        Reply trailing = http.postJson(G + "/query", "{\"query\":" + query + "} {\"query\":\"x\"}");
        assertBadRequest(trailing, "malformed JSON");
        assertThat(trailing.json().path("parse_error").path("line").asInt()).isEqualTo(1);
        assertThat(trailing.json().path("parse_error").path("column").asInt()).isGreaterThan(query.length());

        Reply duplicate = http.postJson(G + "/query", "{\"query\":" + query + ",\n\"query\":\"query x\"}");
        assertBadRequest(duplicate, "Duplicate field 'query'");
        assertThat(duplicate.json().path("parse_error").path("line").asInt()).isEqualTo(2);

        Reply nestedDuplicate = http.postJson(G + "/mutate", "{\"query\":" + Json.text(Json.object()
                .put("q", HttpFixture.QUERIES).path("q")) + ",\"name\":\"addPerson\",\"params\":{\"name\":\"Cy\",\"name\":\"Di\"}}");
        assertBadRequest(nestedDuplicate, "Duplicate field 'name'");

        // A field and its alias: which one runs must not depend on the reader.
        JsonNode aliased = HttpFixture.mutation("addPerson", "{\"name\":\"Cy\"}");
        assertBadRequest(http.postJson(G + "/mutate", ((com.fasterxml.jackson.databind.node.ObjectNode) aliased.deepCopy())
                .put("query_source", READ)), "'query' and its alias 'query_source'");
        assertBadRequest(http.postJson(G + "/mutate", ((com.fasterxml.jackson.databind.node.ObjectNode) aliased.deepCopy())
                .put("query_name", "setAge")), "'name' and its alias 'query_name'");
        assertBadRequest(http.postJson(G + "/query", Json.object().put("query", READ).put("query_source", READ)),
                "'query' and its alias 'query_source'");
        assertHeadUnchanged();
    }

    @Test
    void jacksonsOwnWordingNeverReachesAClient() {
        Reply deep = http.postJson(G + "/query", "{\"params\":" + "[".repeat(2_000) + "]".repeat(2_000) + "}");
        assertBadRequest(deep, "nesting depth");
        assertThat(deep.json().path("parse_error").path("column").asInt()).as("positioned where the limit was passed")
                .isGreaterThan(1_000);
        Reply nan = http.postJson(G + "/mutate", "{\"query\":\"query m($a: I32) { insert Person { name: \\\"z\\\", age: $a } }\","
                + "\"params\":{\"a\":NaN}}");
        assertBadRequest(nan, "NaN");
        Reply comment = http.postJson(G + "/query", "/* hi */ {\"query\":\"x\"}");
        assertBadRequest(comment, "comment");
        Reply ndjsonNan = http.send(HttpMethod.POST, G + "/load/ndjson?mode=append",
                Map.of("Content-Type", "application/x-ndjson"),
                HttpFixture.text("{\"type\":\"Person\",\"data\":{\"name\":\"Cy\",\"age\":Infinity}}\n"));
        assertBadRequest(ndjsonNan, "Infinity");
        assertThat(ndjsonNan.json().path("parse_error").path("subject").asText()).isEqualTo("data.age");
        Reply ndjsonDeep = http.send(HttpMethod.POST, G + "/load/ndjson?mode=append",
                Map.of("Content-Type", "application/x-ndjson"),
                HttpFixture.text("{\"type\":\"Person\",\"data\":{\"name\":\"Cy\",\"bio\":" + "[".repeat(2_000)
                        + "]".repeat(2_000) + "}}\n"));
        assertBadRequest(ndjsonDeep, "nesting depth");
        assertThat(ndjsonDeep.body().length()).as("the subject of a deep value is cut short").isLessThan(1_000);
        for (Reply r : new Reply[] {deep, nan, comment, ndjsonNan, ndjsonDeep}) {
            assertThat(r.json().path("error").asText()).as(r.toString())
                    .doesNotContain("`", "StreamReadConstraints", "JsonReadFeature", "Feature '", "enable");
        }
        assertHeadUnchanged();
    }

    @Test
    void queryParametersAreDecodedStrictlyAndGivenOnce() {
        assertBadRequest(http.get(G + "/snapshot?branch=%FF"), "query string");
        assertBadRequest(http.get(G + "/changes?type=%C3%28"), "query string");
        assertBadRequest(http.get(G + "/snapshot?branch=main&branch=feature"), "'branch' is given 2 times");
        assertBadRequest(http.get(G + "/snapshot?branch=main&snapshot=" + seeded), "either branch or snapshot");
        Reply twoModes = http.send(HttpMethod.POST, G + "/load/ndjson?mode=append&mode=overwrite",
                Map.of("Content-Type", "application/x-ndjson"), HttpFixture.text("{\"type\":\"Company\",\"data\":{\"name\":\"Initech\"}}\n"));
        assertBadRequest(twoModes, "'mode' is given 2 times");
        // Repeatable filters stay repeatable.
        assertThat(http.get(G + "/changes?start=beginning&kind=node&kind=edge").status()).isEqualTo(200);
        assertHeadUnchanged();
    }

    @Test
    void headIsAnsweredOnEveryGetRouteWithoutABody() throws Exception {
        // The JDK's client: the fixture's clients read (and audit) an error body, which a HEAD answer never has.
        java.net.http.HttpClient jdk = java.net.http.HttpClient.newBuilder().connectTimeout(GENEROUS).build();
        for (String path : new String[] {"/healthz", G + "/snapshot", G + "/branches", G + "/commits/" + seeded}) {
            java.net.http.HttpResponse<String> head = head(jdk, path);
            assertThat(head.statusCode()).as(path).isEqualTo(200);
            assertThat(head.headers().firstValue("Content-Type")).as(path).contains("application/json");
            assertThat(head.body()).as(path).isEmpty();
        }
        java.net.http.HttpResponse<String> missing = head(jdk, G + "/commits/01ZZZZZZZZZZZZZZZZZZZZZZZZ");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.headers().firstValue(Exchange.REQUEST_ID)).isPresent();
        java.net.http.HttpResponse<String> post = head(jdk, G + "/query");
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).contains("POST");
        assertThat(http.get(G + "/snapshot").status()).as("GET still has its body").isEqualTo(200);
    }

    private java.net.http.HttpResponse<String> head(java.net.http.HttpClient jdk, String path) throws Exception {
        return jdk.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(http.server.baseUrl() + path))
                .method("HEAD", java.net.http.HttpRequest.BodyPublishers.noBody()).timeout(GENEROUS).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aFloatWithAnExponentIsRefusedAtTheExponent() {
        // The grammar's floats have no exponent; "1.5e3" used to lex as 1.5 then a word, refused one token later.
        for (String literal : new String[] {"1.5e3", "1.5E3", "2.0x"}) {
            Reply reply = http.postJson(G + "/query", Json.object().put("query",
                    "query q() { match { $p: Person $p.age > " + literal + " } return { $p.name } }"));
            assertBadRequest(reply, "after number");
            assertThat(reply.json().path("parse_error").path("column").asInt()).as(literal).isEqualTo(44);
        }
    }

    @Test
    void aSourceOfManyQueriesIsRefusedInAFewWords() {
        StringBuilder source = new StringBuilder();
        for (int i = 0; i < 2_000; i++) source.append("query q").append(i).append("() { match { $p: Person } return { $p.name } }\n");
        Reply reply = http.postJson(G + "/query", Json.object().put("query", source.toString()));
        assertBadRequest(reply, "declares 2000 queries (q0, q1,");
        assertThat(reply.json().path("error").asText()).contains("and 1990 more").hasSizeLessThan(300);
    }

    @Test
    void aHugeInputIsNotEchoedWholeInAnError() {
        String commit = "Z".repeat(500_000);
        Reply unknown = http.postJson(G + "/query", Json.object().put("query", READ).put("snapshot", commit));
        assertThat(unknown.status()).as(unknown.toString().substring(0, 200)).isEqualTo(404);
        assertThat(unknown.json().path("error").asText()).startsWith("no commit ZZZ").contains("characters cut");
        assertThat(unknown.body().length()).isLessThan(5_000);
        Reply name = http.postJson(G + "/query", Json.object().put("query", READ).put("name", "n".repeat(500_000)));
        assertThat(name.status()).isEqualTo(400);
        assertThat(name.body().length()).isLessThan(5_000);
    }

    @Test
    void aLoneSurrogateInsideALoadEnvelopesDataIsRefusedNotReplaced() {
        // The envelope's JSON escape decodes to a lone surrogate inside the NDJSON text itself (HostileTextTest sends
        // the escape through to the NDJSON instead). Encoded to UTF-8 as it was, it became '?' and loaded.
        String body = "{\"mode\":\"append\",\"data\":\"{\\\"type\\\":\\\"Person\\\",\\\"data\\\":"
                + "{\\\"name\\\":\\\"Cy\\\"}}\\n{\\\"type\\\":\\\"Person\\\",\\\"data\\\":"
                + "{\\\"name\\\":\\\"D\\ud800i\\\"}}\\n\"}";
        assertThat(Json.parse(body, "body").path("data").asText()).contains("D\ud800i");
        Reply reply = http.postJson(G + "/load", body);
        assertBadRequest(reply, "unpaired surrogate (U+D800)");
        assertThat(reply.json().path("parse_error").path("source").asText()).isEqualTo("ndjson");
        assertThat(reply.json().path("parse_error").path("line").asInt()).isEqualTo(2);
        assertThat(reply.json().path("parse_error").path("column").asInt()).isEqualTo(35);
        assertHeadUnchanged();
    }

    @Test
    void exportTypeNamesMustBeStrings() {
        assertBadRequest(http.postJson(G + "/export", "{\"type_names\":[\"Person\", 1]}"), "type_names must be an array of type names");
        assertBadRequest(http.postJson(G + "/export", "{\"type_names\":[{}]}"), "type_names must be an array of type names");
    }
}
