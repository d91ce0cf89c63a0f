package dev.omnigraph.http.server;

import dev.omnigraph.engine.internal.HandleInternals;
import static dev.omnigraph.http.testing.HttpFixture.PEOPLE;
import static dev.omnigraph.http.testing.HttpFixture.mutation;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.Failpoints;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every per-graph route over real HTTP on a directory of two graphs: happy paths and error bodies. */
class RoutesTest {
    @TempDir
    Path dir;
    HttpFixture http;

    @BeforeEach
    void setUp() {
        http = new HttpFixture();
        http.init(dir.resolve("social"));
        http.init(dir.resolve("other"));
        http.start(dir);
    }

    @AfterEach
    void tearDown() {
        http.close();
    }

    String load(String graph, String mode, String ndjson) {
        Reply reply = http.postJson("/graphs/" + graph + "/load",
                Json.object().put("data", ndjson).put("mode", mode));
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        return reply.json().path("commit").path("graph_commit_id").asText();
    }

    @Test
    void healthOpenApiAndGraphList() {
        Reply health = http.get("/healthz");
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.json().path("status").asText()).isEqualTo("ok");
        assertThat(health.json().path("internal_schema_version").isInt()).isTrue();

        Reply openApi = http.get("/openapi.json");
        assertThat(openApi.status()).isEqualTo(200);
        JsonNode paths = openApi.json().path("paths");
        for (Route route : http.server.routes().perGraph()) {
            String path = "/graphs/{graph_id}/" + route.path();
            assertThat(paths.has(path)).as(path).isTrue();
            assertThat(paths.path(path).has(route.method().toLowerCase())).as(path).isTrue();
        }
        assertThat(paths.has("/snapshot")).as("no root routes in directory mode").isFalse();

        Reply graphs = http.get("/graphs");
        assertThat(graphs.status()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        graphs.json().path("graphs").forEach(g -> ids.add(g.path("graph_id").asText()));
        assertThat(ids).containsExactly("other", "social");
        assertThat(graphs.json().path("graphs").get(1).path("uri").asText()).startsWith("file:").endsWith("social/");
    }

    @Test
    void snapshotSchemaBranchesAndCommits() {
        String loaded = load("social", "append", PEOPLE);

        Reply snapshot = http.get("/graphs/social/snapshot?branch=main");
        assertThat(snapshot.status()).isEqualTo(200);
        JsonNode s = snapshot.json();
        assertThat(s.path("graph_branch").asText()).isEqualTo("main");
        assertThat(s.path("graph_commit_id").asText()).isEqualTo(loaded);
        assertThat(s.path("graph_manifest_version").asLong()).isPositive();
        Map<String, Long> counts = new java.util.TreeMap<>();
        s.path("datasets").forEach(d -> {
            assertThat(d.path("entity_kind").asText()).isIn("node", "edge");
            assertThat(d.path("dataset_path").asText()).isNotEmpty();
            assertThat(d.path("published_dataset_version").asLong()).isPositive();
            counts.put(d.path("type_name").asText(), d.path("entity_count").asLong());
        });
        assertThat(counts).containsEntry("Person", 2L).containsEntry("Company", 1L).containsEntry("Knows", 1L)
                .containsEntry("WorksAt", 1L);

        assertThat(http.get("/graphs/social/schema").json().path("schema_source").asText()).isEqualTo(HttpFixture.SCHEMA);
        assertThat(http.get("/graphs/social/branches").json().path("branches").toString()).isEqualTo("[\"main\"]");

        JsonNode commits = http.get("/graphs/social/commits?branch=main").json().path("commits");
        assertThat(commits).hasSize(2);
        JsonNode head = commits.get(0);
        assertThat(head.path("graph_commit_id").asText()).isEqualTo(loaded);
        assertThat(head.path("graph_branch").isNull()).isTrue();
        assertThat(head.path("parent_commit_id").asText()).isEqualTo(commits.get(1).path("graph_commit_id").asText());
        assertThat(head.path("merged_parent_commit_id").isNull()).isTrue();
        assertThat(head.path("created_at").asLong()).isGreaterThan(1_600_000_000_000_000L);
        assertThat(commits.get(1).path("parent_commit_id").isNull()).as("genesis has no parent").isTrue();

        Reply one = http.get("/graphs/social/commits/" + loaded);
        assertThat(one.status()).isEqualTo(200);
        assertThat(one.json()).isEqualTo(head);

        Reply atGenesis = http.get("/graphs/social/snapshot?snapshot=" + commits.get(1).path("graph_commit_id").asText());
        atGenesis.json().path("datasets").forEach(d -> assertThat(d.path("entity_count").asLong()).isZero());

        assertThat(http.get("/graphs/social/recoveries").json().path("recoveries")).isEmpty();
    }

    @Test
    void mutateChangeAndNoOp() {
        Reply added = http.postJson("/graphs/social/mutate", mutation("addPerson", "{\"name\":\"Ada\",\"age\":36}"));
        assertThat(added.status()).as(added.toString()).isEqualTo(200);
        JsonNode out = added.json();
        assertThat(out.path("branch").asText()).isEqualTo("main");
        assertThat(out.path("query_name").asText()).isEqualTo("addPerson");
        assertThat(out.path("affected_nodes").asLong()).isEqualTo(1);
        assertThat(out.path("affected_edges").asLong()).isZero();
        assertThat(out.path("actor_id").isNull()).isTrue();
        assertThat(out.path("commit").path("graph_commit_id").asText()).hasSize(26);

        // The deprecated alias, with the query_source/query_name spellings.
        Reply changed = http.postJson("/graphs/social/change", Json.object().put("query_source", HttpFixture.QUERIES)
                .put("query_name", "setAge").set("params", Json.parse("{\"name\":\"Ada\",\"age\":37}", "p")));
        assertThat(changed.status()).as(changed.toString()).isEqualTo(200);
        assertThat(changed.json().path("commit").path("parent_commit_id").asText())
                .isEqualTo(out.path("commit").path("graph_commit_id").asText());

        Reply nothing = http.postJson("/graphs/social/mutate", mutation("setAge", "{\"name\":\"Nobody\",\"age\":1}"));
        assertThat(nothing.status()).isEqualTo(200);
        assertThat(nothing.json().path("commit").isNull()).isTrue();

        // Graphs are independent.
        assertThat(http.get("/graphs/other/commits").json().path("commits")).hasSize(1);
    }

    @Test
    void conditionalMutation() {
        String head = load("social", "merge", PEOPLE);
        Map<String, String> json = Map.of("Content-Type", "application/json");
        String body = Json.text(mutation("setAge", "{\"name\":\"Ada\",\"age\":40}"));

        Reply won = http.send(HttpMethod.POST, "/graphs/social/mutate/if-graph-commit",
                Map.of("Content-Type", "application/json", WriteRoutes.IF_GRAPH_COMMIT, head), HttpFixture.text(body));
        assertThat(won.status()).as(won.toString()).isEqualTo(200);
        String next = won.json().path("commit").path("graph_commit_id").asText();

        Reply lost = http.send(HttpMethod.POST, "/graphs/social/mutate/if-graph-commit",
                Map.of("Content-Type", "application/json", WriteRoutes.IF_GRAPH_COMMIT, "\"" + head + "\""), HttpFixture.text(body));
        assertThat(lost.status()).isEqualTo(412);
        JsonNode error = lost.json();
        assertThat(error.has("code")).as("412 carries no code").isFalse();
        assertThat(error.path("error").asText()).contains(head);
        assertThat(error.path("precondition_failure").path("expected").asText()).isEqualTo(head);
        assertThat(error.path("precondition_failure").path("actual").asText()).isEqualTo(next);

        for (String refused : List.of("*", "W/\"" + next + "\"")) {
            Reply r = http.send(HttpMethod.POST, "/graphs/social/mutate/if-graph-commit",
                    Map.of("Content-Type", "application/json", WriteRoutes.IF_GRAPH_COMMIT, refused), HttpFixture.text(body));
            assertThat(r.status()).as(refused).isEqualTo(400);
            assertThat(r.json().path("code").asText()).isEqualTo("bad_request");
        }
        Reply missing = http.send(HttpMethod.POST, "/graphs/social/mutate/if-graph-commit", json, HttpFixture.text(body));
        assertThat(missing.status()).isEqualTo(400);
        assertThat(missing.json().path("error").asText()).contains(WriteRoutes.IF_GRAPH_COMMIT);
        Reply onPlainRoute = http.send(HttpMethod.POST, "/graphs/social/mutate",
                Map.of("Content-Type", "application/json", WriteRoutes.IF_GRAPH_COMMIT, next), HttpFixture.text(body));
        assertThat(onPlainRoute.status()).isEqualTo(400);
        assertThat(http.get("/graphs/social/commits").json().path("commits")).hasSize(3);
    }

    @Test
    void loadEnvelopeAndNdjson() {
        Reply envelope = http.postJson("/graphs/social/load", Json.object().put("data", PEOPLE).put("mode", "append"));
        assertThat(envelope.status()).as(envelope.toString()).isEqualTo(200);
        JsonNode out = envelope.json();
        assertThat(out.path("uri").asText()).startsWith("file:");
        assertThat(out.path("branch").asText()).isEqualTo("main");
        assertThat(out.path("mode").asText()).isEqualTo("append");
        assertThat(out.path("branch_created").asBoolean()).isFalse();
        assertThat(out.path("total_entities").asLong()).isEqualTo(5);
        List<String> nodes = new ArrayList<>();
        out.path("nodes").forEach(n -> nodes.add(n.path("name").asText()));
        assertThat(nodes).containsExactly("Company", "Person");
        assertThat(out.path("commit").path("graph_commit_id").asText()).hasSize(26);

        Reply raw = http.send(HttpMethod.POST, "/graphs/social/load/ndjson?mode=merge",
                Map.of("Content-Type", "application/x-ndjson"),
                HttpFixture.text("{\"type\":\"Person\",\"data\":{\"name\":\"Cy\",\"age\":20}}\n"));
        assertThat(raw.status()).as(raw.toString()).isEqualTo(200);
        assertThat(raw.json().path("mode").asText()).isEqualTo("merge");
        assertThat(raw.json().has("uri")).isFalse();
        assertThat(raw.json().path("nodes").get(0).path("entities_loaded").asLong()).isEqualTo(1);
        assertThat(raw.json().path("commit").path("parent_commit_id").asText())
                .isEqualTo(out.path("commit").path("graph_commit_id").asText());
    }

    @Test
    void parseAndValidationErrorsCarryTheirPosition() {
        Reply parse = http.postJson("/graphs/social/mutate",
                Json.object().put("query", "query q() {\n  insert Persn { name: \"x\" }\n}"));
        assertThat(parse.status()).isEqualTo(400);
        JsonNode p = parse.json();
        assertThat(p.path("code").asText()).isEqualTo("bad_request");
        assertThat(p.path("parse_error").path("line").asInt()).isEqualTo(2);
        assertThat(p.path("parse_error").path("column").asInt()).isPositive();

        Reply ndjson = http.send(HttpMethod.POST, "/graphs/social/load/ndjson", Map.of("Content-Type", "application/x-ndjson"),
                HttpFixture.text("{\"type\":\"Person\",\"data\":{\"name\":\"A\"}}\n{\"type\":\"Person\",\"data\":{\"name\":\n"));
        assertThat(ndjson.status()).as(ndjson.toString()).isEqualTo(400);
        assertThat(ndjson.json().path("parse_error").path("line").asInt()).isEqualTo(2);
        assertThat(ndjson.json().path("parse_error").path("source").asText()).isEqualTo("ndjson");

        Reply invalid = http.postJson("/graphs/social/load",
                Json.object().put("data", "{\"type\":\"Person\",\"data\":{\"name\":\"A\",\"age\":\"old\"}}\n"));
        assertThat(invalid.status()).as(invalid.toString()).isEqualTo(400);
        assertThat(invalid.json().path("validation_error").path("type_name").asText()).isEqualTo("Person");
        assertThat(invalid.json().path("validation_error").path("property").asText()).isEqualTo("age");

        Reply badJson = http.postJson("/graphs/social/mutate", "{\"query\": \n  oops}");
        assertThat(badJson.status()).isEqualTo(400);
        assertThat(badJson.json().path("parse_error").path("line").asInt()).isEqualTo(2);
        assertThat(badJson.json().path("parse_error").path("source").asText()).isEqualTo("request body");

        Reply badParam = http.postJson("/graphs/social/mutate", mutation("addPerson", "{\"name\":5}"));
        assertThat(badParam.status()).isEqualTo(400);
        assertThat(badParam.json().path("error").asText()).contains("$name");
        Reply badMode = http.postJson("/graphs/social/load", Json.object().put("data", PEOPLE).put("mode", "upsert"));
        assertThat(badMode.status()).isEqualTo(400);
        assertThat(badMode.json().path("error").asText()).contains("append");
    }

    @Test
    void notFoundMethodNotAllowedConflictAndMediaType() {
        load("social", "append", PEOPLE);
        for (String path : List.of("/graphs/nope/snapshot", "/graphs/social/commits/01HZZZZZZZZZZZZZZZZZZZZZZZ",
                "/graphs/social/snapshot?branch=nope", "/graphs/social/nothing", "/snapshot", "/graphs/..%2Fsocial/schema")) {
            Reply r = http.get(path);
            assertThat(r.status()).as(path + " " + r).isEqualTo(404);
            assertThat(r.json().path("code").asText()).as(path).isEqualTo("not_found");
            assertThat(r.json().path("error").asText()).as(path).isNotEmpty();
        }
        Reply wrongMethod = http.get("/graphs/social/mutate");
        assertThat(wrongMethod.status()).isEqualTo(405);
        assertThat(wrongMethod.json().path("code").asText()).isEqualTo("method_not_allowed");
        assertThat(wrongMethod.headers().get("Allow")).isEqualTo("POST");

        Reply conflict = http.postJson("/graphs/social/load", Json.object().put("mode", "append")
                .put("data", "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\"}}\n"));
        assertThat(conflict.status()).isEqualTo(409);
        JsonNode c = conflict.json();
        assertThat(c.path("code").asText()).isEqualTo("conflict");
        assertThat(c.path("key_conflict").path("entity_kind").asText()).isEqualTo("node");
        assertThat(c.path("key_conflict").path("type_name").asText()).isEqualTo("Person");
        assertThat(c.path("key_conflict").path("entity_id").asText()).isEqualTo("Bob");

        Reply form = http.send(HttpMethod.POST, "/graphs/social/mutate",
                Map.of("Content-Type", "application/x-www-form-urlencoded"), HttpFixture.text("query=x"));
        assertThat(form.status()).isEqualTo(415);
        assertThat(form.json().path("error").asText()).contains("application/json");
        Reply jsonToNdjson = http.send(HttpMethod.POST, "/graphs/social/load/ndjson",
                Map.of("Content-Type", "application/json"), HttpFixture.text(PEOPLE));
        assertThat(jsonToNdjson.status()).isEqualTo(415);

        Reply unknownExportField = http.postJson("/graphs/social/export", "{\"branch\":\"main\",\"types\":[\"Person\"]}");
        assertThat(unknownExportField.status()).isEqualTo(400);
        assertThat(unknownExportField.json().path("error").asText()).contains("types");
    }

    @Test
    void failedWritesAre500Or503WithTheOperationAndTheAuditLogListsTheRecovery() {
        load("social", "append", PEOPLE);
        Omnigraph graph = http.server.graph("social").block();
        HandleInternals.of(graph).failpoints().arm("mutation.after_commit:1", new Failpoints.Action.Error());
        Reply fault = http.postJson("/graphs/social/mutate", mutation("addPerson", "{\"name\":\"Cy\"}"));
        assertThat(fault.status()).as(fault.toString()).isEqualTo(500);
        assertThat(fault.json().path("code").asText()).isEqualTo("internal");
        JsonNode audit = http.get("/graphs/social/recoveries").json().path("recoveries");
        assertThat(audit).hasSize(1);
        assertThat(audit.get(0).path("kind").asText()).isEqualTo("rolled_back");
        assertThat(audit.get(0).path("operation_id").asText()).isNotEmpty();
        assertThat(audit.get(0).path("tables").get(0).path("entity_kind").asText()).isEqualTo("node");

        // Compensation itself fails: the sidecar stays and the branch refuses writes until recovery runs.
        HandleInternals.of(graph).failpoints().arm("recovery.before_plan_write", new Failpoints.Action.Error());
        Reply stuck = http.postJson("/graphs/social/mutate", mutation("addPerson", "{\"name\":\"Cy\"}"));
        HandleInternals.of(graph).failpoints().disarm("mutation.after_commit:1");
        HandleInternals.of(graph).failpoints().disarm("recovery.before_plan_write");
        assertThat(stuck.status()).as(stuck.toString()).isEqualTo(503);
        assertThat(stuck.json().has("code")).isFalse();
        String operation = stuck.json().path("recovery_required").path("operation_id").asText();
        assertThat(operation).isNotEmpty();
        Reply blocked = http.postJson("/graphs/social/mutate", mutation("addPerson", "{\"name\":\"Dee\"}"));
        assertThat(blocked.status()).isEqualTo(503);
        assertThat(blocked.json().path("recovery_required").path("operation_id").asText()).isEqualTo(operation);
    }

    @Test
    void singleGraphServesTheSameRoutesAtTheRoot() {
        http.server.shutdown().block(http.server.shutdownBound());
        http.start(dir.resolve("social"));
        assertThat(http.server.singleGraphId()).contains("social");
        load("social", "append", PEOPLE);
        Reply root = http.get("/snapshot");
        Reply prefixed = http.get("/graphs/social/snapshot");
        assertThat(root.status()).isEqualTo(200);
        assertThat(root.json()).isEqualTo(prefixed.json());
        Reply mutate = http.postJson("/mutate", mutation("addPerson", "{\"name\":\"Cy\"}"));
        assertThat(mutate.status()).isEqualTo(200);
        assertThat(http.get("/commits").json().path("commits")).hasSize(3);
        assertThat(http.get("/graphs").json().path("graphs")).hasSize(1);
        assertThat(http.get("/graphs/other/snapshot").status()).isEqualTo(404);
        JsonNode paths = http.get("/openapi.json").json().path("paths");
        assertThat(paths.has("/snapshot")).isTrue();
        assertThat(paths.has("/mutate/if-graph-commit")).isTrue();
        assertThat(paths.path("/snapshot").path("get").path("parameters").toString()).doesNotContain("graph_id");
    }
}
