package dev.omnigraph.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.Shapes;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;

/**
 * Top-level dispatch: the open routes ({@code /healthz}, {@code /openapi.json}), then the bearer check, then
 * {@code /graphs} and {@code /graphs/{graph_id}/…}, and, on a single-graph server, the same per-graph routes at
 * the root. Every failure becomes the one JSON error body. The tables here are also what {@link OpenApi}
 * describes, so the document lists exactly what is served.
 */
final class Routes {
    /** Served on a deprecated route, with a {@code Link} to its successor. */
    static final String DEPRECATION = "Deprecation";

    private final GraphRegistry registry;
    private final BearerTokens tokens;
    private final ServerPolicy policy;
    private final List<Route> open;
    private final List<Route> top;
    private final List<Route> perGraph;
    private final JsonNode openApi;
    private final FollowerRouting followers;

    Routes(GraphRegistry registry, BearerTokens tokens, ServerMetrics metrics, ServerPolicy policy,
           FollowerRouting followers) {
        this.registry = registry;
        this.tokens = tokens;
        this.policy = policy;
        this.followers = followers;
        this.open = List.of(
                new Route("GET", "healthz", (ex, g, v) -> ex.json(200, followers.health(Shapes.health())),
                        ApiDoc.of("health", "Liveness and versions", "HealthOutput")),
                new Route("GET", "openapi.json", (ex, g, v) -> ex.json(200, openApi()),
                        ApiDoc.of("getOpenApi", "This document", null)));
        this.top = List.of(new Route("GET", "graphs", (ex, g, v) -> listGraphs(ex),
                        ApiDoc.of("listGraphs", "The graphs served, sorted by id", "GraphListOutput")),
                // Behind the bearer check like every route but the open ones; `serve --metrics-bind` serves it open
                // on a second address for a scraper.
                metricsRoute(metrics));
        this.perGraph = graphRoutes();
        this.openApi = OpenApi.document(this, registry.singleId().isPresent(), tokens.enabled());
    }

    /** Every per-graph route, in dispatch order. */
    static List<Route> graphRoutes() {
        return Stream.of(ReadRoutes.routes(), ChangeRoutes.routes(), WriteRoutes.routes(), MergeRoutes.routes(), BranchRoutes.routes(), SchemaRoutes.routes(), IndexRoutes.routes(), MaintenanceRoutes.routes(), StoredQueryRoutes.routes())
                .flatMap(List::stream).toList();
    }

    /** {@code GET /metrics}: every meter of {@code metrics} as Prometheus text. */
    static Route metricsRoute(ServerMetrics metrics) {
        return new Route("GET", "metrics", (ex, g, v) -> ex.text(200, ServerMetrics.CONTENT_TYPE, metrics.scrape()),
                ApiDoc.of("metrics", "Engine, JVM, process and HTTP server meters in the Prometheus text format", null)
                        .respondsWith("text/plain"));
    }

    /**
     * The route template serving {@code path} (e.g. {@code /graphs/{graph_id}/query}), for Reactor Netty's
     * {@code uri} tag: a raw path would make one meter per graph, id or typo. Unmatched paths share one value.
     */
    String template(String path) {
        int query = path.indexOf('?');
        String bare = query < 0 ? path : path.substring(0, query);
        List<String> segments = java.util.Arrays.stream(bare.split("/")).filter(s -> !s.isEmpty()).toList();
        for (List<Route> routes : List.of(open, top)) {
            for (Route route : routes) {
                if (route.match(segments).isPresent()) return "/" + route.path();
            }
        }
        boolean underGraphs = segments.size() >= 2 && segments.get(0).equals("graphs");
        List<String> rest = underGraphs ? segments.subList(2, segments.size()) : segments;
        if (underGraphs || registry.singleId().isPresent()) {
            for (Route route : perGraph) {
                if (route.match(rest).isPresent()) return (underGraphs ? "/graphs/{graph_id}/" : "/") + route.path();
            }
        }
        return "/{unmatched}";
    }

    private JsonNode openApi() {
        return openApi;
    }

    /** Stops the freshness checks and the forwarding client. */
    void close() {
        followers.close();
    }

    /** Routes answered without a bearer token. */
    List<Route> open() {
        return open;
    }

    /** Top-level routes behind the bearer check. */
    List<Route> top() {
        return top;
    }

    /** Routes below {@code /graphs/{graph_id}} (and at the root on a single-graph server). */
    List<Route> perGraph() {
        return perGraph;
    }

    /**
     * Routes one request. Everything, the URI's parsing included, happens inside the returned {@code Mono}, so a
     * malformed request is answered (400) like any other failure and never escapes the server's request count.
     */
    Mono<Void> dispatch(Exchange begun) {
        HttpServerRequest request = begun.request;
        String method = request.method().name();
        return Mono.defer(() -> {
            RequestTarget target = RequestTarget.parse(request.uri());
            List<String> segments = target.rawSegments();
            Optional<Matched> openRoute = match(open, method, segments, begun, target.rawPath());
            if (openRoute.isPresent()) return openRoute.get().serve(begun, null);
            Optional<String> actor = Optional.empty();
            if (tokens.enabled()) {
                List<String> authorizations = request.requestHeaders().getAll(HttpHeaderNames.AUTHORIZATION);
                if (authorizations.size() > 1) {
                    // Which one counts would depend on the reader (a proxy may take the last, this server the first).
                    throw HttpProblem.unauthorized("send one Authorization header, not " + authorizations.size());
                }
                actor = tokens.actorFor(authorizations.isEmpty() ? null : authorizations.get(0));
                if (actor.isEmpty()) {
                    throw HttpProblem.unauthorized("missing or unknown bearer token (send Authorization: Bearer <token>)");
                }
            }
            Exchange ex = RouteGate.gate(begun.resolved(target.query(), actor), policy);
            Optional<Matched> topRoute = match(top, method, segments, ex, target.rawPath());
            if (topRoute.isPresent()) {
                Matched top = topRoute.get();
                return RouteGate.decide(top.route(), top.vars(), ex).flatMap(ready -> top.serve(ready, null));
            }
            if (!segments.isEmpty() && segments.get(0).equals("graphs")) {
                return graphRoute(ex, method, RequestTarget.decode(segments.get(1)), segments.subList(2, segments.size()),
                        target.rawPath());
            }
            if (registry.singleId().isPresent()) {
                return graphRoute(ex, method, registry.singleId().get(), segments, target.rawPath());
            }
            throw HttpProblem.notFound("no route " + method + " " + target.rawPath()
                    + "; per-graph routes live under /graphs/{graph_id}/");
        }).onErrorResume(e -> begun.error(e, name -> null));
    }

    private Mono<Void> listGraphs(Exchange ex) {
        return registry.list().flatMap(list -> {
            ObjectNode out = Json.object();
            ArrayNode graphs = out.putArray("graphs");
            list.forEach(g -> graphs.addObject().put("graph_id", g.graphId()).put("uri", g.root().displayUri()));
            return ex.json(200, out);
        });
    }

    private Mono<Void> graphRoute(Exchange ex, String method, String graphId, List<String> rest, String rawPath) {
        Matched matched = match(perGraph, method, rest, ex, rawPath).orElseThrow(() -> HttpProblem.notFound(
                "no route " + method + " /" + String.join("/", rest) + " on a graph"));
        if (ex.gate().isEmpty()) {
            return registry.graph(graphId).flatMap(graph -> Mono.defer(() -> followers.serve(ex, graphId, graph,
                            matched.route(), matched.vars(), matched.serve(ex, graph)))
                    .onErrorResume(e -> ex.error(e, entityKinds(graph))));
        }
        // Decided before any work, the graph's lookup and a forward to the lease holder included; see RouteGate.
        Exchange forGraph = ex.gated(ex.gate().get().forGraph(graphId));
        return RouteGate.decide(matched.route(), matched.vars(), forGraph).flatMap(ready ->
                RouteGate.hideUnknown(registry.graph(graphId), ready).flatMap(graph -> Mono.defer(() -> followers.serve(
                                ready, graphId, graph, matched.route(), matched.vars(), matched.serve(ready, graph)))
                        .onErrorResume(e -> ready.error(e, entityKinds(graph)))));
    }

    /** A route and the variables its path captured. */
    private record Matched(Route route, Map<String, String> vars, String rawPath) {
        Mono<Void> serve(Exchange ex, Omnigraph graph) {
            if (route.doc().successor() != null) {
                String base = rawPath.substring(0, rawPath.lastIndexOf('/') + 1);
                ex.response.header(DEPRECATION, "true");
                ex.response.header("Link", "<" + base + route.doc().successor() + ">; rel=\"successor-version\"");
            }
            return Mono.defer(() -> route.handler().handle(ex, graph, vars));
        }
    }

    /**
     * The route of {@code routes} serving this path and method (a GET route serves HEAD too); empty when none has
     * the path; a 405 naming the allowed methods when some have the path but not the method.
     */
    private static Optional<Matched> match(List<Route> routes, String method, List<String> segments, Exchange ex,
                                           String rawPath) {
        List<String> allowed = new ArrayList<>();
        for (Route route : routes) {
            Optional<Map<String, String>> found = route.match(segments);
            if (found.isEmpty()) continue;
            // HEAD is GET without the body (HTTP's rule; Netty's encoder drops the body of a HEAD answer).
            boolean head = method.equals("HEAD") && route.method().equals("GET");
            if (route.method().equals(method) || head) return Optional.of(new Matched(route, found.get(), rawPath));
            allowed.add(route.method());
            if (route.method().equals("GET")) allowed.add("HEAD");
        }
        if (allowed.isEmpty()) return Optional.empty();
        String path = "/" + String.join("/", segments);
        ex.response.header(HttpHeaderNames.ALLOW, String.join(", ", allowed));
        throw new HttpProblem(405, "method_not_allowed", method + " is not served on " + path
                + " (allowed: " + String.join(", ", allowed) + ")");
    }

    /** "node" / "edge" for a type name of this graph, for the key_conflict detail. */
    static Function<String, String> entityKinds(Omnigraph graph) {
        return name -> graph.schema().catalog().node(name).isPresent() ? "node"
                : graph.schema().catalog().edge(name).isPresent() ? "edge" : null;
    }
}
