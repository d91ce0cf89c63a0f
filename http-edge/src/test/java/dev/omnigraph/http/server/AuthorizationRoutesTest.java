package dev.omnigraph.http.server;

import static dev.omnigraph.http.testing.HttpFixture.mutation;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.internal.HandleInternals;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.StoredQueries;
import io.netty.handler.codec.http.HttpMethod;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

/**
 * Actors × actions × branches through the real server with a policy: every allowed request succeeds, every denied
 * one is 403 {@code forbidden} naming the action and resource, and leaves the graph's files (heads, sidecars,
 * manifest, tables) exactly as they were.
 */
class AuthorizationRoutesTest {
    static final String BUNDLE = """
            version: 1
            groups:
              agents: [act-agent]
              reviewers: [act-reviewer]
              listers: [act-reviewer]
            protected_branches: [main]
            rules:
              - id: agents-work-off-main
                allow: { actors: { group: agents }, actions: [read, change], branch_scope: unprotected }
              - id: agents-branch-off-main
                allow: { actors: { group: agents }, actions: [branch_create, branch_merge, branch_delete], target_branch_scope: unprotected }
              - id: agents-invoke
                allow: { actors: { group: agents }, actions: [invoke_query] }
              - id: reviewers-any-branch
                allow: { actors: { group: reviewers }, actions: [read, export, change], branch_scope: any }
              - id: reviewers-land
                allow: { actors: { group: reviewers }, actions: [branch_merge, branch_delete, branch_create, schema_apply], target_branch_scope: any }
              - id: listers
                allow: { actors: { group: listers }, actions: [graph_list] }
            """;
    static final String AGENT = "Bearer agent-token-1";
    static final String REVIEWER = "Bearer reviewer-token-1";
    static final String STRANGER = "Bearer stranger-token-1";

    @TempDir
    Path dir;
    HttpFixture http;
    Path graphDir;

    @BeforeEach
    void start() throws IOException {
        http = new HttpFixture();
        graphDir = dir.resolve("g");
        Omnigraph graph = http.init(graphDir);
        StoredQueries.add(HandleInternals.of(graph).objectStore(), HttpFixture.QUERIES, graph.catalog()).block();
        graph.branches().create("feature").block();
        graph.closeAsync().block();
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, "agent-token-1=act-agent\nreviewer-token-1=act-reviewer\nstranger-token-1=act-stranger\n");
        Path bundle = dir.resolve("policy.yaml");
        Files.writeString(bundle, BUNDLE);
        http.start(OmnigraphServer.Config.of(dir).withTokens(BearerTokens.fromFile(tokens)),
                ServerPolicy.load(Optional.of(bundle), Map.of()));
    }

    @AfterEach
    void stop() {
        http.close();
    }

    @Test
    void writesFollowBranchScopes() {
        allowed(AGENT, "POST", "/graphs/g/mutate", mutate("feature", "Ada"));
        denied(AGENT, "POST", "/graphs/g/mutate", mutate("main", "Eve"), "change", "branch 'main'");
        denied(AGENT, "POST", "/graphs/g/mutate", mutate(null, "Eve"), "change", "branch 'main'");
        denied(STRANGER, "POST", "/graphs/g/mutate", mutate("feature", "Eve"), "change", "branch 'feature'");
        allowed(REVIEWER, "POST", "/graphs/g/mutate", mutate("main", "Rev"));
        // A load that forks its branch also needs branch_create on it.
        allowed(AGENT, "POST", "/graphs/g/load", Json.object().put("data", HttpFixture.PEOPLE).put("branch", "fresh")
                .put("from", "main"));
        denied(AGENT, "POST", "/graphs/g/load", Json.object().put("data", HttpFixture.PEOPLE), "change", "branch 'main'");
        denied(AGENT, "POST", "/graphs/g/load/ndjson?branch=main", null, "change", "branch 'main'");
    }

    @Test
    void readsAndExport() {
        allowed(AGENT, "POST", "/graphs/g/query", Json.object().put("query", HttpFixture.QUERIES).put("name", "people")
                .put("branch", "feature"));
        denied(AGENT, "POST", "/graphs/g/query", Json.object().put("query", HttpFixture.QUERIES).put("name", "people"),
                "read", "branch 'main'");
        denied(AGENT, "GET", "/graphs/g/snapshot", null, "read", "branch 'main'");
        allowed(AGENT, "GET", "/graphs/g/snapshot?branch=feature", null);
        denied(AGENT, "POST", "/graphs/g/export", Json.object().put("branch", "feature"), "export", "branch 'feature'");
        allowed(REVIEWER, "POST", "/graphs/g/export", Json.object());
        denied(STRANGER, "GET", "/graphs/g/commits?branch=feature", null, "read", "branch 'feature'");
    }

    @Test
    void branchOperationsMergeAndSchemaApply() {
        allowed(AGENT, "POST", "/graphs/g/mutate", mutate("feature", "Ada"));
        denied(AGENT, "POST", "/graphs/g/branches/merge", Json.object().put("source", "feature"), "branch_merge",
                "target branch 'main'");
        // Creating a protected branch is a protected target (the policy answers before the engine would refuse).
        denied(AGENT, "POST", "/graphs/g/branches", Json.object().put("name", "main").put("from", "feature"),
                "branch_create", "target branch 'main'");
        allowed(AGENT, "POST", "/graphs/g/branches", Json.object().put("name", "scratch").put("from", "feature"));
        denied(AGENT, "DELETE", "/graphs/g/branches/main", null, "branch_delete", "target branch 'main'");
        allowed(AGENT, "DELETE", "/graphs/g/branches/scratch", null);
        denied(AGENT, "POST", "/graphs/g/schema/apply", Json.object().put("schema_source", HttpFixture.SCHEMA
                .replace("bio: String?", "bio: String?\n    nick: String?")), "schema_apply", "target branch 'main'");
        // The reviewer lands the branch (deleting it) and then reshapes the graph.
        allowed(REVIEWER, "POST", "/graphs/g/branches/merge", Json.object().put("source", "feature")
                .put("delete_branch", true));
        allowed(REVIEWER, "POST", "/graphs/g/schema/apply", Json.object().put("schema_source", HttpFixture.SCHEMA
                .replace("bio: String?", "bio: String?\n    nick: String?")));
    }

    @Test
    void storedQueriesAreGatedTwice() {
        JsonNode onMain = Json.object().set("params", Json.parse("{\"name\":\"Q\"}", "p"));
        denied(AGENT, "POST", "/graphs/g/queries/addPerson", onMain, "change", "branch 'main'");
        denied(STRANGER, "POST", "/graphs/g/queries/addPerson", onMain, "invoke_query", "graph 'g'");
        JsonNode onFeature = ((com.fasterxml.jackson.databind.node.ObjectNode) onMain.deepCopy()).put("branch", "feature");
        allowed(AGENT, "POST", "/graphs/g/queries/addPerson", onFeature);
        denied(AGENT, "POST", "/graphs/g/queries/people", Json.object(), "read", "branch 'main'");
        allowed(AGENT, "POST", "/graphs/g/queries/people", Json.object().put("branch", "feature"));
        denied(REVIEWER, "POST", "/graphs/g/queries/people", Json.object(), "invoke_query", "graph 'g'");
    }

    @Test
    void unknownGraphsAre404OnlyForListers() {
        assertThat(call(REVIEWER, "GET", "/graphs", null).status()).isEqualTo(200);
        denied(AGENT, "GET", "/graphs", null, "graph_list", "server");
        Reply lister = call(REVIEWER, "GET", "/graphs/nope/snapshot?branch=feature", null);
        assertThat(lister.status()).as(lister.toString()).isEqualTo(404);
        Reply agent = call(AGENT, "GET", "/graphs/nope/snapshot?branch=feature", null);
        assertThat(agent.status()).as(agent.toString()).isEqualTo(403);
        Reply stranger = call(STRANGER, "GET", "/graphs/nope/snapshot?branch=feature", null);
        assertThat(stranger.status()).isEqualTo(403);
        assertThat(stranger.body()).isEqualTo(call(STRANGER, "GET", "/graphs/g/snapshot?branch=feature", null).body()
                .replace("'g'", "'nope'").replaceAll("\"request_id\":\"[^\"]*\"", "\"request_id\":\"" + requestId(stranger) + "\""));
    }

    @Test
    void denialsAreCountedByAction() {
        denied(AGENT, "POST", "/graphs/g/mutate", mutate("main", "Eve"), "change", "branch 'main'");
        denied(STRANGER, "GET", "/graphs/g/branches", null, "read", "graph 'g'");
        String metrics = call(REVIEWER, "GET", "/metrics", null).body();
        assertThat(metrics).containsPattern("omnigraph_authz_denials_total\\{action=\"change\"[^}]*\\} 1\\.0");
        assertThat(metrics).containsPattern("omnigraph_authz_denials_total\\{action=\"read\"[^}]*\\} 1\\.0");
    }

    private static String requestId(Reply reply) {
        return reply.json().path("request_id").asText();
    }

    private static JsonNode mutate(String branch, String name) {
        JsonNode body = mutation("addPerson", "{\"name\":\"" + name + "\"}");
        if (branch != null) ((com.fasterxml.jackson.databind.node.ObjectNode) body).put("branch", branch);
        return body;
    }

    private Reply call(String token, String method, String path, JsonNode body) {
        Map<String, String> headers = new HashMap<>(Map.of("Authorization", token));
        if (body != null) headers.put("Content-Type", "application/json");
        if (path.contains("load/ndjson")) headers.put("Content-Type", "application/x-ndjson");
        String text = body != null ? Json.text(body) : path.contains("load/ndjson") ? HttpFixture.PEOPLE : null;
        return http.send(HttpMethod.valueOf(method), path, headers, text == null ? Mono.empty() : HttpFixture.text(text));
    }

    private void allowed(String token, String method, String path, JsonNode body) {
        Reply reply = call(token, method, path, body);
        assertThat(reply.status()).as(method + " " + path + " -> " + reply).isEqualTo(200);
    }

    private void denied(String token, String method, String path, JsonNode body, String action, String resource) {
        Map<String, Long> before = files();
        Reply reply = call(token, method, path, body);
        assertThat(reply.status()).as(method + " " + path + " -> " + reply).isEqualTo(403);
        assertThat(reply.json().path("code").asText()).isEqualTo("forbidden");
        String message = reply.json().path("error").asText();
        assertThat(message).contains(action).contains(resource).doesNotContain("agents-").doesNotContain("reviewers-")
                .doesNotContain("act-");
        assertThat(files()).as("a denied request changes nothing: " + method + " " + path).isEqualTo(before);
    }

    /** Every file under the graph root with its size: heads, manifest, sidecars and table data. */
    private Map<String, Long> files() {
        try (Stream<Path> all = Files.walk(graphDir)) {
            Map<String, Long> out = new java.util.TreeMap<>();
            for (Path p : (Iterable<Path>) all.filter(Files::isRegularFile)::iterator) {
                out.put(graphDir.relativize(p).toString(), Files.size(p));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
