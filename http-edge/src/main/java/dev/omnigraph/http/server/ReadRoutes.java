package dev.omnigraph.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.QueryOutput;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.query.QueryCache;
import dev.omnigraph.engine.query.QueryDecl;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.QuerySources;
import dev.omnigraph.http.wire.Shapes;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.GraphBranches;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import reactor.core.publisher.Mono;

/** Per-graph read routes: healthz, snapshot, schema, branches, commits, recoveries, query (and /read), export. */
final class ReadRoutes {
    private static final Set<String> EXPORT_FIELDS = Set.of("branch", "type_names");

    private ReadRoutes() {
    }

    static List<Route> routes() {
        return List.of(
                new Route("GET", "healthz", (ex, g, v) -> ex.json(200, Shapes.health()),
                        ApiDoc.of("health", "Liveness, at the graph's base path (where an SDK pointed at "
                                + "/graphs/{graph_id} looks for it)", "HealthOutput")),
                new Route("GET", "snapshot", ReadRoutes::snapshot,
                        ApiDoc.of("getSnapshot", "A branch head's (or a commit's) datasets and counts", "SnapshotOutput")
                                .param("branch", "Branch (default main)").param("snapshot", "A commit id; exclusive with branch")),
                new Route("GET", "schema", (ex, g, v) -> ex.json(200, Json.object().put("schema_source", g.schema().source())),
                        ApiDoc.of("getSchema", "The graph's .pg schema source", "SchemaOutput")),
                new Route("GET", "branches", ReadRoutes::branches,
                        ApiDoc.of("listBranches", "Branch names", "BranchListOutput")),
                new Route("GET", "commits", ReadRoutes::commits,
                        ApiDoc.of("listCommits", "Commits reachable from a branch head, newest first", "CommitListOutput")
                                .param("branch", "Branch (default main)")),
                new Route("GET", "commits/{commit_id}", (ex, g, v) ->
                        g.commit(v.get("commit_id")).flatMap(c -> ex.json(200, Shapes.commit(c))),
                        ApiDoc.of("getCommit", "One commit", "CommitOutput")),
                new Route("GET", "recoveries", (ex, g, v) ->
                        g.maintenance().recoveries().collectList().flatMap(list -> ex.json(200, Shapes.recoveries(list))),
                        ApiDoc.of("listRecoveries", "What recovery did with each interrupted write", "RecoveryListOutput")),
                new Route("POST", "query", (ex, g, v) -> query(ex, g, false),
                        ApiDoc.of("query", "Run a read query (rows streamed)", "ReadOutput").body("QueryRequest").statuses(503)),
                new Route("POST", "read", (ex, g, v) -> query(ex, g, true),
                        ApiDoc.of("read", "Deprecated form of /query (no graph_commit_id)", "LegacyReadOutput")
                                .body("ReadRequest").statuses(503).deprecatedFor("query")),
                new Route("POST", "export", ReadRoutes::export,
                        ApiDoc.of("export", "The graph as NDJSON in the load format, streamed", null)
                                .respondsWith(ApiDoc.NDJSON).body("ExportRequest").statuses(503)),
                BlobRoute.route());
    }

    private static Mono<Void> snapshot(Exchange ex, Omnigraph graph, Map<String, String> vars) {
        if (ex.param("snapshot").isPresent() && ex.param("branch").isPresent()) {
            throw HttpProblem.badRequest("give either branch or snapshot, not both");
        }
        ReadTarget target = ex.param("snapshot").map(ReadTarget::commit)
                .orElseGet(() -> ReadTarget.branch(ex.param("branch").orElse(GraphBranches.MAIN)));
        return graph.snapshot(target).flatMap(s -> ex.json(200, Shapes.snapshot(s)));
    }

    private static Mono<Void> branches(Exchange ex, Omnigraph graph, Map<String, String> vars) {
        return graph.branches().list().flatMap(list -> {
            ObjectNode out = Json.object();
            ArrayNode names = out.putArray("branches");
            list.stream().map(BranchIdentity::name).forEach(names::add);
            return ex.json(200, out);
        });
    }

    private static Mono<Void> commits(Exchange ex, Omnigraph graph, Map<String, String> vars) {
        return graph.commits(ex.param("branch").orElse(GraphBranches.MAIN)).collectList()
                .flatMap(list -> ex.json(200, Shapes.commits(list)));
    }

    /**
     * {@code POST /query} ({@code legacy}: the deprecated {@code /read}, without {@code graph_commit_id}). The
     * envelope is streamed: its head, then the rows in batches as the engine produces them, then the count. A small
     * body whose query text was compiled before is handled on the event loop up to the first storage call.
     */
    private static Mono<Void> query(Exchange ex, Omnigraph graph, boolean legacy) {
        return ex.jsonBody(false, body -> warm(body, legacy)).flatMap(body -> {
            String source = text(body, legacy ? "query_source" : "query", legacy ? "query" : "query_source");
            if (source == null) {
                throw HttpProblem.badRequest("the request body needs '" + (legacy ? "query_source" : "query") + "'");
            }
            QueryDecl decl = QuerySources.pickRead(source, text(body, legacy ? "query_name" : "name",
                    legacy ? "name" : "query_name"));
            ReadTarget target = target(body);
            Map<String, Object> params = Json.params(body.get("params"), "params");
            return graph.query(target, source, decl.name(), params)
                    .flatMap(out -> sendRows(ex, graph, out, target, legacy));
        });
    }

    /** Whether the body's query text was compiled before (anything unexpected: no, and the caller hops). */
    private static boolean warm(JsonNode body, boolean legacy) {
        JsonNode source = body.get(legacy ? "query_source" : "query");
        return source != null && source.isTextual() && QueryCache.parsedBefore(source.asText());
    }

    static ReadTarget target(JsonNode body) {
        String branch = text(body, "branch");
        String snapshot = text(body, "snapshot");
        if (branch != null && snapshot != null) {
            throw HttpProblem.badRequest("give either branch or snapshot, not both");
        }
        return snapshot != null ? ReadTarget.commit(snapshot) : ReadTarget.branch(branch != null ? branch : GraphBranches.MAIN);
    }

    static Mono<Void> sendRows(Exchange ex, Omnigraph graph, QueryOutput out, ReadTarget target, boolean legacy) {
        List<String> columns = out.columns().stream().map(QueryOutput.Column::name).toList();
        ObjectNode head = Json.object();
        head.put("query_name", out.queryName());
        head.set("target", Shapes.target(target));
        ArrayNode cols = head.putArray("columns");
        columns.forEach(cols::add);
        if (!legacy) head.put("graph_commit_id", out.graphCommitId().orElse(null));
        return Streaming.rowsEnvelope(ex, head, columns, out.rows(), Routes.entityKinds(graph));
    }

    /** {@code POST /export}: the graph as NDJSON in the load format, streamed with the engine's demand. */
    private static Mono<Void> export(Exchange ex, Omnigraph graph, Map<String, String> vars) {
        return ex.jsonBody(true).flatMap(body -> {
            onlyFields(body, EXPORT_FIELDS, "export takes branch and type_names");
            Set<String> types = new LinkedHashSet<>();
            JsonNode typeNames = body.get("type_names");
            if (typeNames != null && !typeNames.isNull()) {
                if (!typeNames.isArray()) throw HttpProblem.badRequest("type_names must be an array of type names");
                for (JsonNode t : typeNames) {
                    if (!t.isTextual()) {
                        throw HttpProblem.badRequest("type_names must be an array of type names (strings), not "
                                + t.getNodeType().name().toLowerCase(java.util.Locale.ROOT) + " elements");
                    }
                    types.add(t.asText());
                }
            }
            ReadTarget target = ReadTarget.branch(text(body, "branch") != null ? text(body, "branch") : GraphBranches.MAIN);
            return Streaming.ndjson(ex, graph.export(target, types), Routes.entityKinds(graph));
        });
    }

    /** Refuses a body field outside {@code allowed}; {@code hint} says what the route takes. */
    static void onlyFields(JsonNode body, Set<String> allowed, String hint) {
        for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw HttpProblem.badRequest("unknown field '" + name + "' (" + hint + ")");
            }
        }
    }

    /**
     * The text field {@code names[0]} or one of its aliases, or null when none is given. Giving a field and an alias
     * together is a 400: which of the two runs must not depend on the reader (a proxy that checks one while the
     * server runs the other).
     */
    static String text(JsonNode body, String... names) {
        String found = null;
        String foundName = null;
        for (String name : names) {
            JsonNode value = body.get(name);
            if (value == null || value.isNull()) continue;
            if (foundName != null) {
                throw HttpProblem.badRequest("'" + foundName + "' and its alias '" + name + "' are both given; send one");
            }
            if (!value.isTextual()) throw HttpProblem.badRequest("'" + name + "' must be a string");
            found = value.asText();
            foundName = name;
        }
        return found;
    }
}
