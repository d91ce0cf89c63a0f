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
import java.util.stream.Collectors;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;

/**
 * Top-level dispatch: {@code /healthz} and {@code /openapi.json} (open), then the bearer check, then
 * {@code /graphs} and {@code /graphs/{graph_id}/…}, and, on a single-graph server, the same per-graph routes at
 * the root. Every failure becomes the one JSON error body.
 */
final class Routes {
    static final List<Route> GRAPH_ROUTES = concat(ReadRoutes.routes(), WriteRoutes.routes());

    private final GraphRegistry registry;
    private final BearerTokens tokens;
    private final JsonNode openApi;

    Routes(GraphRegistry registry, BearerTokens tokens, JsonNode openApi) {
        this.registry = registry;
        this.tokens = tokens;
        this.openApi = openApi;
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
            if (segments.equals(List.of("healthz"))) {
                return only(method, "GET").then(Mono.defer(() -> begun.json(200, Shapes.health())));
            }
            if (segments.equals(List.of("openapi.json"))) {
                return only(method, "GET").then(Mono.defer(() -> begun.json(200, openApi)));
            }
            Optional<String> actor = Optional.empty();
            if (tokens.enabled()) {
                actor = tokens.actorFor(request.requestHeaders().get(HttpHeaderNames.AUTHORIZATION));
                if (actor.isEmpty()) {
                    throw HttpProblem.unauthorized("missing or unknown bearer token (send Authorization: Bearer <token>)");
                }
            }
            Exchange ex = begun.resolved(target.query(), actor);
            if (!segments.isEmpty() && segments.get(0).equals("graphs")) {
                if (segments.size() == 1) return only(method, "GET").then(Mono.defer(() -> listGraphs(ex)));
                return graphRoute(ex, method, RequestTarget.decode(segments.get(1)), segments.subList(2, segments.size()));
            }
            if (registry.singleId().isPresent()) {
                return graphRoute(ex, method, registry.singleId().get(), segments);
            }
            throw HttpProblem.notFound("no route " + method + " " + target.rawPath()
                    + "; per-graph routes live under /graphs/{graph_id}/");
        }).onErrorResume(e -> begun.error(e, name -> null));
    }

    private Mono<Void> listGraphs(Exchange ex) {
        return registry.list().flatMap(list -> {
            ObjectNode out = Json.object();
            ArrayNode graphs = out.putArray("graphs");
            list.forEach(g -> graphs.addObject().put("graph_id", g.graphId()).put("uri", g.root().toUri().toString()));
            return ex.json(200, out);
        });
    }

    private Mono<Void> graphRoute(Exchange ex, String method, String graphId, List<String> rest) {
        Route matched = null;
        Map<String, String> vars = null;
        List<String> allowed = new ArrayList<>();
        for (Route route : GRAPH_ROUTES) {
            Optional<Map<String, String>> found = route.match(rest);
            if (found.isEmpty()) continue;
            allowed.add(route.method());
            if (route.method().equals(method)) {
                matched = route;
                vars = found.get();
            }
        }
        String path = "/" + String.join("/", rest);
        if (matched == null && allowed.isEmpty()) {
            throw HttpProblem.notFound("no route " + method + " " + path + " on a graph");
        }
        if (matched == null) {
            ex.response.header(HttpHeaderNames.ALLOW, String.join(", ", allowed));
            throw new HttpProblem(405, "method_not_allowed", method + " is not served on " + path
                    + " (allowed: " + String.join(", ", allowed) + ")");
        }
        Route route = matched;
        Map<String, String> captured = vars;
        return registry.graph(graphId).flatMap(graph -> Mono.defer(() -> route.handler().handle(ex, graph, captured))
                .onErrorResume(e -> ex.error(e, entityKinds(graph))));
    }

    /** "node" / "edge" for a type name of this graph, for the key_conflict detail. */
    static Function<String, String> entityKinds(Omnigraph graph) {
        return name -> graph.catalog().node(name).isPresent() ? "node"
                : graph.catalog().edge(name).isPresent() ? "edge" : null;
    }

    private static Mono<Void> only(String method, String expected) {
        return method.equals(expected) ? Mono.empty()
                : Mono.error(new HttpProblem(405, "method_not_allowed", method + " is not served here (allowed: " + expected + ")"));
    }

    private static List<Route> concat(List<Route> a, List<Route> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).collect(Collectors.toUnmodifiableList());
    }
}
