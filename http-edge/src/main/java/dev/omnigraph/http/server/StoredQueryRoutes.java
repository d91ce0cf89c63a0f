package dev.omnigraph.http.server;

import dev.omnigraph.engine.internal.HandleInternals;
import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.http.policy.PolicyAction;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.Shapes;
import dev.omnigraph.http.wire.StoredQueries;
import dev.omnigraph.storage.manifest.GraphBranches;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * {@code GET /queries} and {@code POST /queries/{name}} (and {@code …/if-graph-commit}): the graph's stored queries
 * ({@link StoredQueries}), read from the root's object store on every request, so a query registered with
 * the CLI while the server runs is served at once. A read answers the query envelope, a mutation the mutation one.
 */
final class StoredQueryRoutes {
    private static final Set<String> FIELDS = Set.of("params", "branch", "snapshot", "expect_mutation");

    private StoredQueryRoutes() {
    }

    static List<Route> routes() {
        return List.of(
                new Route("GET", "queries", (ex, g, v) -> StoredQueries.list(HandleInternals.of(g).objectStore())
                        .flatMap(list -> ex.json(200, StoredQueries.listing(list))),
                        ApiDoc.of("list_queries", "The graph's stored queries, with their parameters", "StoredQueryListOutput")),
                new Route("POST", "queries/{name}", (ex, g, v) -> invoke(ex, g, v.get("name"), false),
                        ApiDoc.of("invoke_query", "Run a stored query by name: a read answers the query envelope, a "
                                + "mutation the mutation envelope", "StoredQueryOutput")
                                .body("StoredQueryRequest").statuses(409, 503).takesIdempotencyKey()),
                new Route("POST", "queries/{name}/if-graph-commit", (ex, g, v) -> invoke(ex, g, v.get("name"), true),
                        ApiDoc.of("invoke_query_if_graph_commit", "Run a stored mutation only if the branch head is "
                                + "the commit in Omnigraph-If-Graph-Commit", "ChangeOutput")
                                .body("StoredQueryRequest").statuses(409, 503).takesIdempotencyKey().takesIfGraphCommit()));
    }

    private static Mono<Void> invoke(Exchange ex, Omnigraph graph, String name, boolean conditional) {
        Optional<String> expected = WriteRoutes.ifGraphCommit(ex, conditional);
        return ex.jsonBody(true).zipWith(StoredQueries.get(HandleInternals.of(graph).objectStore(), name)).flatMap(both -> {
            JsonNode body = both.getT1();
            StoredQueries.Stored stored = both.getT2();
            for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
                String field = names.next();
                if (!FIELDS.contains(field)) {
                    throw HttpProblem.badRequest("unknown field '" + field + "' (a stored query takes params, branch, "
                            + "snapshot and expect_mutation)");
                }
            }
            boolean mutation = stored.decl().isMutation();
            JsonNode expect = body.get("expect_mutation");
            if (expect != null && !expect.isNull() && (!expect.isBoolean() || expect.asBoolean() != mutation)) {
                throw HttpProblem.badRequest("stored query '" + name + "' is " + (mutation ? "a mutation" : "a read query")
                        + "; expect_mutation says otherwise");
            }
            Map<String, Object> params = Json.params(body.get("params"), "params");
            if (!mutation) {
                if (conditional || ex.header(WriteRoutes.IDEMPOTENCY_KEY).isPresent()) {
                    throw HttpProblem.badRequest("stored query '" + name + "' is a read query; conditional and "
                            + "idempotent invocation is for mutations");
                }
                ReadTarget target = ReadRoutes.target(body);
                // The second gate: invoke_query let the caller reach the query; what it does is a read.
                ex.gate().ifPresent(g -> g.require(PolicyAction.READ, RouteAccess.readBranch(body), null));
                return graph.query(target, stored.source(), name, params)
                        .flatMap(out -> ReadRoutes.sendRows(ex, graph, out, target, false));
            }
            if (ReadRoutes.text(body, "snapshot") != null) {
                throw HttpProblem.badRequest("a mutation writes a branch head; 'snapshot' is for reads");
            }
            String branch = Optional.ofNullable(ReadRoutes.text(body, "branch")).orElse(GraphBranches.MAIN);
            // The second gate: what the stored mutation does is a change of its branch.
            ex.gate().ifPresent(g -> g.require(PolicyAction.CHANGE, branch, null));
            WriteOptions options = WriteRoutes.writeOptions(ex, expected);
            return graph.mutate(branch, stored.source(), name, params, options)
                    .flatMap(outcome -> WriteRoutes.markReplay(ex, outcome)
                            .json(200, Shapes.mutation(branch, name, outcome, ex.actor)));
        });
    }
}
