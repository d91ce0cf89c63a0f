package dev.omnigraph.http.server;

import static dev.omnigraph.http.testing.HttpFixture.mutation;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

/**
 * The served {@code /openapi.json} against the route tables the server dispatches on: every route is documented,
 * every documented operation is served (probed over real HTTP), upstream's operation ids, OpenAPI 3.1, nullable
 * fields as sent, and the statuses each route can return.
 */
class OpenApiDocumentTest {
    /** Upstream's operation ids for the routes both servers have (its served openapi.json, cluster mode). */
    static final Map<String, String> UPSTREAM_IDS = Map.ofEntries(
            Map.entry("GET /healthz", "health"),
            Map.entry("GET /graphs", "listGraphs"),
            Map.entry("GET /graphs/{graph_id}/snapshot", "cluster_getSnapshot"),
            Map.entry("GET /graphs/{graph_id}/schema", "cluster_getSchema"),
            Map.entry("GET /graphs/{graph_id}/branches", "cluster_listBranches"),
            Map.entry("GET /graphs/{graph_id}/commits", "cluster_listCommits"),
            Map.entry("GET /graphs/{graph_id}/commits/{commit_id}", "cluster_getCommit"),
            Map.entry("POST /graphs/{graph_id}/query", "cluster_query"),
            Map.entry("POST /graphs/{graph_id}/read", "cluster_read"),
            Map.entry("POST /graphs/{graph_id}/mutate", "cluster_mutate"),
            Map.entry("POST /graphs/{graph_id}/change", "cluster_change"),
            Map.entry("POST /graphs/{graph_id}/mutate/if-graph-commit", "cluster_mutate_if_graph_commit"),
            Map.entry("POST /graphs/{graph_id}/load", "cluster_load"),
            Map.entry("POST /graphs/{graph_id}/load/ndjson", "cluster_loadNdjson"),
            Map.entry("POST /graphs/{graph_id}/ingest", "cluster_ingest"),
            Map.entry("POST /graphs/{graph_id}/export", "cluster_export"),
            Map.entry("GET /graphs/{graph_id}/queries", "cluster_list_queries"),
            Map.entry("POST /graphs/{graph_id}/queries/{name}", "cluster_invoke_query"),
            Map.entry("POST /graphs/{graph_id}/queries/{name}/if-graph-commit", "cluster_invoke_query_if_graph_commit"));

    @TempDir
    Path dir;
    HttpFixture http;

    @BeforeEach
    void setUp() {
        http = new HttpFixture();
        http.init(dir.resolve("social"));
    }

    @AfterEach
    void tearDown() {
        http.close();
    }

    static Set<String> operations(JsonNode doc) {
        return new TreeSet<>(OpenApi.documented(doc).keySet());
    }

    static Set<String> served(Routes routes, boolean singleGraph) {
        Set<String> out = new TreeSet<>();
        Stream.concat(routes.open().stream(), routes.top().stream()).forEach(r -> out.add(r.method() + " /" + r.path()));
        for (Route r : routes.perGraph()) {
            out.add(r.method() + " /graphs/{graph_id}/" + r.path());
            if (singleGraph && !out.contains(r.method() + " /" + r.path())) out.add(r.method() + " /" + r.path());
        }
        return out;
    }

    @Test
    void everyServedRouteIsDocumentedAndEveryDocumentedOperationIsServed() {
        http.start(dir);
        Reply reply = http.get("/openapi.json");
        assertThat(reply.status()).isEqualTo(200);
        JsonNode doc = reply.json();
        assertThat(doc.path("openapi").asText()).isEqualTo("3.1.0");
        assertThat(operations(doc)).isEqualTo(served(http.server.routes(), false));
        for (String operation : operations(doc)) {
            String[] parts = operation.split(" ", 2);
            String path = parts[1].replace("{graph_id}", "social").replace("{commit_id}", "nope").replace("{name}", "nope");
            Reply probe = http.send(HttpMethod.valueOf(parts[0]), path, Map.of("Content-Type", "application/json"),
                    Mono.<ByteBuf>empty());
            assertThat(probe.status()).as(operation + " → " + probe).isNotEqualTo(405);
            assertThat(probe.body()).as(operation).doesNotContain("no route");
        }
        Reply undocumented = http.get("/graphs/social/nothing-here");
        assertThat(undocumented.status()).isEqualTo(404);
        assertThat(undocumented.body()).contains("no route");
    }

    @Test
    void operationIdsAreUpstreamsAndUnique() {
        http.start(dir);
        JsonNode doc = http.get("/openapi.json").json();
        Set<String> ids = new HashSet<>();
        doc.path("paths").properties().forEach(path -> path.getValue().properties().forEach(op -> {
            String id = op.getValue().path("operationId").asText();
            assertThat(ids.add(id)).as("duplicate operationId " + id).isTrue();
            String key = op.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey();
            if (UPSTREAM_IDS.containsKey(key)) assertThat(id).as(key).isEqualTo(UPSTREAM_IDS.get(key));
        }));
        assertThat(ids).containsAll(UPSTREAM_IDS.values());
    }

    @Test
    void statusesHeadersAndNullablesAsSent() {
        http.start(dir);
        JsonNode doc = http.get("/openapi.json").json();
        Map<String, TreeSet<Integer>> statuses = OpenApi.documented(doc);
        for (String write : List.of("POST /graphs/{graph_id}/mutate", "POST /graphs/{graph_id}/load",
                "POST /graphs/{graph_id}/load/ndjson", "POST /graphs/{graph_id}/ingest",
                "POST /graphs/{graph_id}/queries/{name}")) {
            assertThat(statuses.get(write)).as(write).contains(200, 400, 404, 409, 413, 414, 415, 422, 431, 503);
            assertThat(parameterNames(doc, write)).as(write).contains("Idempotency-Key");
        }
        for (String conditional : List.of("POST /graphs/{graph_id}/mutate/if-graph-commit",
                "POST /graphs/{graph_id}/queries/{name}/if-graph-commit")) {
            assertThat(statuses.get(conditional)).as(conditional).contains(412, 422);
            assertThat(parameterNames(doc, conditional)).contains("Omnigraph-If-Graph-Commit", "Idempotency-Key");
        }
        assertThat(statuses.get("POST /graphs/{graph_id}/query")).contains(413, 503);
        assertThat(statuses.get("GET /healthz")).doesNotContain(401, 404);
        assertThat(operation(doc, "POST /graphs/{graph_id}/read").path("deprecated").asBoolean()).isTrue();
        assertThat(operation(doc, "POST /graphs/{graph_id}/ingest").path("responses").path("200").path("headers")
                .has("Deprecation")).isTrue();

        // A no-op mutation sends commit: null, and the document allows it.
        Reply noop = http.postJson("/graphs/social/mutate", mutation("setAge", "{\"name\":\"Nobody\",\"age\":1}"));
        assertThat(noop.status()).as(noop.toString()).isEqualTo(200);
        assertThat(noop.json().path("commit").isNull()).isTrue();
        JsonNode commit = doc.path("components").path("schemas").path("ChangeOutput").path("properties").path("commit");
        assertThat(commit.path("oneOf").toString()).contains("\"type\":\"null\"");
        assertThat(doc.toString()).doesNotContain("\"nullable\":true");
    }

    @Test
    void aSingleGraphServerAlsoDocumentsItsRootRoutesWithTheSdksIds() {
        http.start(dir.resolve("social"));
        JsonNode doc = http.get("/openapi.json").json();
        assertThat(operations(doc)).isEqualTo(served(http.server.routes(), true));
        assertThat(operation(doc, "POST /ingest").path("operationId").asText()).isEqualTo("ingest");
        assertThat(operation(doc, "GET /branches").path("operationId").asText()).isEqualTo("listBranches");
        assertThat(operation(doc, "GET /healthz").path("operationId").asText()).isEqualTo("health");
        assertThat(operation(doc, "GET /snapshot").path("parameters").toString()).doesNotContain("graph_id");
        Reply ingest = http.postJson("/ingest", "{\"data\":\"\",\"mode\":\"append\"}");
        assertThat(ingest.headers().get("Link")).isEqualTo("</load>; rel=\"successor-version\"");
    }

    static JsonNode operation(JsonNode doc, String key) {
        String[] parts = key.split(" ", 2);
        return doc.path("paths").path(parts[1]).path(parts[0].toLowerCase(Locale.ROOT));
    }

    static List<String> parameterNames(JsonNode doc, String key) {
        List<String> names = new ArrayList<>();
        operation(doc, key).path("parameters").forEach(p -> names.add(p.path("name").asText()));
        return names;
    }
}
