package dev.omnigraph.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.http.policy.PolicyAction;
import dev.omnigraph.storage.manifest.GraphBranches;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What every per-graph and top-level route asks of the policy, decided in {@link Routes} before the route does any
 * work: the action, and where its branch and target branch come from (path, query string or JSON body). A route
 * that reads its branch from the body has the body read first (within the usual limits) and handed to the route,
 * so a denied write stages nothing and a denied read reads nothing. {@code RouteAccessGuardTest} checks that no
 * route is missing here.
 */
final class RouteAccess {
    /** How the route's body is read before the decision. */
    enum Body { NONE, JSON, OPTIONAL_JSON, LOAD_ENVELOPE }

    /** One question: an action on a branch and/or a target branch (either may be null). */
    record Ask(PolicyAction action, String branch, String target) {
    }

    @FunctionalInterface
    interface Asks {
        List<Ask> of(Exchange ex, Map<String, String> vars, JsonNode body);
    }

    /** A route's questions; no questions means the route needs no permission beyond authentication. */
    record Rule(Body body, Asks asks) {
    }

    private static final String MAIN = GraphBranches.MAIN;

    private static final Map<String, Rule> RULES = Map.ofEntries(
            // No permission beyond authentication: liveness.
            Map.entry("GET healthz", new Rule(Body.NONE, (ex, v, b) -> List.of())),
            Map.entry("GET metrics", new Rule(Body.NONE, (ex, v, b) -> List.of())),
            Map.entry("GET graphs", rule(PolicyAction.GRAPH_LIST)),
            // Reads: on a branch when one is named (a commit id or snapshot names none).
            Map.entry("GET snapshot", new Rule(Body.NONE, (ex, v, b) -> one(PolicyAction.READ, queryBranch(ex), null))),
            Map.entry("GET blob", new Rule(Body.NONE, (ex, v, b) -> one(PolicyAction.READ, queryBranch(ex), null))),
            Map.entry("GET schema", rule(PolicyAction.READ)),
            Map.entry("GET branches", rule(PolicyAction.READ)),
            Map.entry("GET commits", new Rule(Body.NONE, (ex, v, b) ->
                    one(PolicyAction.READ, ex.param("branch").orElse(MAIN), null))),
            Map.entry("GET commits/{commit_id}", rule(PolicyAction.READ)),
            Map.entry("GET commits/{commit_id}/changes", rule(PolicyAction.READ)),
            Map.entry("GET changes", new Rule(Body.NONE, (ex, v, b) ->
                    one(PolicyAction.READ, ex.param("branch").orElse(MAIN), null))),
            Map.entry("POST changes/baseline", new Rule(Body.OPTIONAL_JSON, (ex, v, b) ->
                    one(PolicyAction.READ, bodyBranch(b), null))),
            Map.entry("POST query", new Rule(Body.JSON, (ex, v, b) -> one(PolicyAction.READ, readBranch(b), null))),
            Map.entry("POST read", new Rule(Body.JSON, (ex, v, b) -> one(PolicyAction.READ, readBranch(b), null))),
            Map.entry("POST export", new Rule(Body.OPTIONAL_JSON, (ex, v, b) ->
                    one(PolicyAction.EXPORT, bodyBranch(b), null))),
            // Writes to a branch; a load that forks its branch also creates it.
            Map.entry("POST mutate", change()),
            Map.entry("POST change", change()),
            Map.entry("POST mutate/if-graph-commit", change()),
            Map.entry("POST load", new Rule(Body.LOAD_ENVELOPE, (ex, v, b) ->
                    load(bodyBranch(b), Optional.ofNullable(text(b, "from"))))),
            Map.entry("POST ingest", new Rule(Body.LOAD_ENVELOPE, (ex, v, b) ->
                    load(bodyBranch(b), Optional.ofNullable(text(b, "from"))))),
            Map.entry("POST load/ndjson", new Rule(Body.NONE, (ex, v, b) ->
                    load(ex.param("branch").orElse(MAIN), ex.param("from")))),
            // Branch operations: the target is the branch they change.
            Map.entry("POST branches", new Rule(Body.JSON, (ex, v, b) -> one(PolicyAction.BRANCH_CREATE,
                    Optional.ofNullable(text(b, "from")).orElse(MAIN), text(b, "name")))),
            Map.entry("DELETE branches/{branch}", new Rule(Body.NONE, (ex, v, b) ->
                    one(PolicyAction.BRANCH_DELETE, null, v.get("branch")))),
            Map.entry("POST branches/merge", new Rule(Body.JSON, (ex, v, b) -> {
                String source = text(b, "source");
                Ask merge = new Ask(PolicyAction.BRANCH_MERGE, source, Optional.ofNullable(text(b, "target")).orElse(MAIN));
                JsonNode delete = b.get("delete_branch");
                return delete != null && delete.asBoolean(false)
                        ? List.of(merge, new Ask(PolicyAction.BRANCH_DELETE, null, source)) : List.of(merge);
            })),
            Map.entry("POST schema/apply", new Rule(Body.JSON, (ex, v, b) -> one(PolicyAction.SCHEMA_APPLY, null, MAIN))),
            // Maintenance of the graph as a whole.
            Map.entry("GET recoveries", rule(PolicyAction.ADMIN)),
            Map.entry("POST optimize", rule(PolicyAction.ADMIN)),
            Map.entry("POST repair", rule(PolicyAction.ADMIN)),
            Map.entry("POST indexes/ensure", rule(PolicyAction.ADMIN)),
            // Stored queries: reaching one; what it does is gated again in StoredQueryRoutes.
            Map.entry("GET queries", rule(PolicyAction.INVOKE_QUERY)),
            Map.entry("POST queries/{name}", rule(PolicyAction.INVOKE_QUERY)),
            Map.entry("POST queries/{name}/if-graph-commit", rule(PolicyAction.INVOKE_QUERY)));

    private RouteAccess() {
    }

    /** The rule of a route; a route without one is a programming error, refused as a server fault. */
    static Rule of(Route route) {
        Rule rule = RULES.get(route.method() + " " + route.path());
        if (rule == null) throw new IllegalStateException("route " + route.method() + " " + route.path()
                + " has no authorization rule in RouteAccess");
        return rule;
    }

    static boolean covers(Route route) {
        return RULES.containsKey(route.method() + " " + route.path());
    }

    private static Rule rule(PolicyAction action) {
        return new Rule(Body.NONE, (ex, v, b) -> one(action, null, null));
    }

    private static Rule change() {
        return new Rule(Body.JSON, (ex, v, b) -> one(PolicyAction.CHANGE, bodyBranch(b), null));
    }

    private static List<Ask> one(PolicyAction action, String branch, String target) {
        return List.of(new Ask(action, branch, target));
    }

    private static List<Ask> load(String branch, Optional<String> from) {
        Ask change = new Ask(PolicyAction.CHANGE, branch, null);
        return from.map(f -> List.of(new Ask(PolicyAction.BRANCH_CREATE, f, branch), change)).orElse(List.of(change));
    }

    /** The {@code branch} query parameter, main by default, none when a snapshot is read instead. */
    private static String queryBranch(Exchange ex) {
        return ex.param("snapshot").isPresent() ? null : ex.param("branch").orElse(MAIN);
    }

    private static String bodyBranch(JsonNode body) {
        return Optional.ofNullable(text(body, "branch")).orElse(MAIN);
    }

    /** A read's branch: none when it reads a snapshot (a commit id names no branch). */
    static String readBranch(JsonNode body) {
        return text(body, "snapshot") != null ? null : bodyBranch(body);
    }

    /** A text field, or null when absent or not text (the route itself refuses a malformed body after). */
    private static String text(JsonNode body, String field) {
        JsonNode value = body == null ? null : body.get(field);
        return value != null && value.isTextual() ? value.asText() : null;
    }
}
