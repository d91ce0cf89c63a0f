package dev.omnigraph.http.server;

import dev.omnigraph.engine.internal.HandleInternals;
import static dev.omnigraph.http.testing.HttpFixture.PEOPLE;
import static dev.omnigraph.http.testing.HttpFixture.QUERIES;
import static dev.omnigraph.http.testing.HttpFixture.mutation;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.StoredQueries;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Routes and headers existing clients use (issue 13, item 4), over real HTTP on real graphs: the deprecated
 * {@code /ingest} alias, {@code Deprecation}/{@code Link} on deprecated routes, stored queries, and the per-graph
 * {@code healthz} at the SDK's base path.
 */
class CompatRoutesTest {
    @TempDir
    Path dir;
    HttpFixture http;
    Omnigraph social;

    @BeforeEach
    void setUp() {
        http = new HttpFixture();
        social = http.init(dir.resolve("social"));
        http.start(dir);
    }

    @AfterEach
    void tearDown() {
        http.close();
    }

    @Test
    void ingestIsLoadWithDeprecationHeaders() {
        Reply ingest = http.postJson("/graphs/social/ingest", Json.object().put("data", PEOPLE).put("mode", "append"));
        assertThat(ingest.status()).as(ingest.toString()).isEqualTo(200);
        assertThat(ingest.headers().get("Deprecation")).isEqualTo("true");
        assertThat(ingest.headers().get("Link")).isEqualTo("</graphs/social/load>; rel=\"successor-version\"");
        Reply load = http.postJson("/graphs/social/load", Json.object().put("data", PEOPLE).put("mode", "merge"));
        assertThat(load.headers().get("Deprecation")).isNull();
        JsonNode a = ingest.json();
        JsonNode b = load.json();
        assertThat(a.fieldNames()).toIterable().containsExactlyElementsOf(() -> b.fieldNames());
        assertThat(a.path("uri")).isEqualTo(b.path("uri"));
        assertThat(a.path("total_entities").asInt()).isEqualTo(5);
        assertThat(http.get("/graphs/social/commits").json().path("commits")).hasSize(3);
    }

    @Test
    void readAndChangePointAtTheirSuccessors() {
        Reply change = http.postJson("/graphs/social/change", mutation("addPerson", "{\"name\":\"Cy\"}"));
        assertThat(change.status()).as(change.toString()).isEqualTo(200);
        assertThat(change.headers().get("Deprecation")).isEqualTo("true");
        assertThat(change.headers().get("Link")).isEqualTo("</graphs/social/mutate>; rel=\"successor-version\"");
        Reply read = http.postJson("/graphs/social/read", Json.object().put("query_source", QUERIES).put("query_name", "people"));
        assertThat(read.status()).as(read.toString()).isEqualTo(200);
        assertThat(read.headers().get("Deprecation")).isEqualTo("true");
        assertThat(read.headers().get("Link")).isEqualTo("</graphs/social/query>; rel=\"successor-version\"");
        Reply query = http.postJson("/graphs/social/query", Json.object().put("query", QUERIES).put("name", "people"));
        assertThat(query.headers().get("Deprecation")).isNull();
        assertThat(query.headers().get("Link")).isNull();
    }

    @Test
    void healthAtTheGraphsBasePath() {
        Reply health = http.get("/graphs/social/healthz");
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.json()).isEqualTo(http.get("/healthz").json());
        assertThat(http.get("/graphs/nope/healthz").status()).isEqualTo(404);
    }

    @Test
    void storedQueriesAreListedAndInvokedByName() {
        http.postJson("/graphs/social/load", Json.object().put("data", PEOPLE).put("mode", "append"));
        assertThat(http.get("/graphs/social/queries").json().path("queries")).isEmpty();
        StoredQueries.add(HandleInternals.of(social).objectStore(), QUERIES, social.catalog()).block();

        JsonNode listed = http.get("/graphs/social/queries").json();
        assertThat(listed.path("queries")).hasSize(4);
        assertThat(listed.path("queries").get(0).path("tool_name").asText()).isEqualTo("addPerson");

        Reply read = http.postJson("/graphs/social/queries/people", "{}");
        assertThat(read.status()).as(read.toString()).isEqualTo(200);
        assertThat(read.json().path("row_count").asInt()).isEqualTo(2);
        String head = read.json().path("graph_commit_id").asText();
        assertThat(http.send(HttpMethod.POST, "/graphs/social/queries/people", Map.of(), reactor.core.publisher.Mono.<io.netty.buffer.ByteBuf>empty()).status())
                .as("no body at all").isEqualTo(200);

        Reply wrote = http.send(HttpMethod.POST, "/graphs/social/queries/addPerson/if-graph-commit",
                Map.of("Content-Type", "application/json", WriteRoutes.IF_GRAPH_COMMIT, head),
                HttpFixture.text("{\"params\":{\"name\":\"Cy\"}}"));
        assertThat(wrote.status()).as(wrote.toString()).isEqualTo(200);
        assertThat(wrote.json().path("query_name").asText()).isEqualTo("addPerson");
        assertThat(wrote.json().path("affected_nodes").asInt()).isEqualTo(1);

        Reply stale = http.send(HttpMethod.POST, "/graphs/social/queries/addPerson/if-graph-commit",
                Map.of("Content-Type", "application/json", WriteRoutes.IF_GRAPH_COMMIT, head),
                HttpFixture.text("{\"params\":{\"name\":\"Dee\"}}"));
        assertThat(stale.status()).as(stale.toString()).isEqualTo(412);
        assertThat(stale.json().path("precondition_failure").path("expected").asText()).isEqualTo(head);

        Map<String, String> keyed = Map.of("Content-Type", "application/json", WriteRoutes.IDEMPOTENCY_KEY, "k-1");
        Reply first = http.send(HttpMethod.POST, "/graphs/social/queries/addPerson", keyed,
                HttpFixture.text("{\"params\":{\"name\":\"Eve\"}}"));
        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        Reply again = http.send(HttpMethod.POST, "/graphs/social/queries/addPerson", keyed,
                HttpFixture.text("{\"params\":{\"name\":\"Eve\"}}"));
        assertThat(again.status()).as(again.toString()).isEqualTo(200);
        assertThat(again.headers().get(WriteRoutes.IDEMPOTENT_REPLAYED)).isEqualTo("true");
        assertThat(again.json().path("commit")).isEqualTo(first.json().path("commit"));
        Reply readKeyed = http.send(HttpMethod.POST, "/graphs/social/queries/people", keyed, HttpFixture.text("{}"));
        assertThat(readKeyed.status()).as("a read takes no idempotency key").isEqualTo(400);

        Reply missing = http.postJson("/graphs/social/queries/nope", "{}");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.json().path("error").asText()).contains("no stored query 'nope'");
        Reply wrongKind = http.postJson("/graphs/social/queries/people", "{\"expect_mutation\":true}");
        assertThat(wrongKind.status()).isEqualTo(400);
        Reply unknownField = http.postJson("/graphs/social/queries/people", "{\"query\":\"x\"}");
        assertThat(unknownField.status()).isEqualTo(400);
        assertThat(unknownField.json().path("error").asText()).contains("unknown field 'query'");
        assertThat(http.get("/graphs/social/commits").json().path("commits")).hasSize(4);
    }
}
