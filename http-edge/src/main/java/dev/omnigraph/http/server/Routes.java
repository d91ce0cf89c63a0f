package dev.omnigraph.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.http.wire.ErrorBodies;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.Shapes;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * Top-level dispatch: {@code /healthz} and {@code /openapi.json} (open), then the bearer check, then
 * {@code /graphs} and {@code /graphs/{graph_id}/…}, and, on a single-graph server, the same per-graph routes at
 * the root. Every failure becomes the one JSON error body.
 */
final class Routes {
    private static final Logger LOG = LoggerFactory.getLogger(Routes.class);
    static final List<Route> GRAPH_ROUTES = concat(ReadRoutes.routes(), WriteRoutes.routes());

    private final GraphRegistry registry;
    private final BearerTokens tokens;
    private final ServerLimits limits;
    private final JsonNode openApi;

    Routes(GraphRegistry registry, BearerTokens tokens, ServerLimits limits, JsonNode openApi) {
        this.registry = registry;
        this.tokens = tokens;
        this.limits = limits;
        this.openApi = openApi;
    }

    Mono<Void> dispatch(HttpServerRequest request, HttpServerResponse response) {
        List<String> segments = segments(new QueryStringDecoder(request.uri()).path());
        String method = request.method().name();
        Exchange open = new Exchange(request, response, Optional.empty(), limits);
        return Mono.defer(() -> {
            if (segments.equals(List.of("healthz"))) {
                return only(method, "GET").then(Mono.defer(() -> open.json(200, Shapes.health())));
            }
            if (segments.equals(List.of("openapi.json"))) {
                return only(method, "GET").then(Mono.defer(() -> open.json(200, openApi)));
            }
            Optional<String> actor = Optional.empty();
            if (tokens.enabled()) {
                actor = tokens.actorFor(request.requestHeaders().get(HttpHeaderNames.AUTHORIZATION));
                if (actor.isEmpty()) {
                    throw HttpProblem.unauthorized("missing or unknown bearer token (send Authorization: Bearer <token>)");
                }
            }
            Exchange ex = new Exchange(request, response, actor, limits);
            if (!segments.isEmpty() && segments.get(0).equals("graphs")) {
                if (segments.size() == 1) return only(method, "GET").then(Mono.defer(() -> listGraphs(ex)));
                return graphRoute(ex, method, segments.get(1), segments.subList(2, segments.size()));
            }
            if (registry.singleId().isPresent()) {
                return graphRoute(ex, method, registry.singleId().get(), segments);
            }
            throw HttpProblem.notFound("no route " + method + " /" + String.join("/", segments)
                    + "; per-graph routes live under /graphs/{graph_id}/");
        }).onErrorResume(e -> {
            logIfInternal(e);
            return open.error(e, name -> null);
        });
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
        if (matched == null && allowed.isEmpty()) {
            throw HttpProblem.notFound("no route " + method + " /" + String.join("/", rest) + " on a graph");
        }
        if (matched == null) {
            ex.response.header(HttpHeaderNames.ALLOW, String.join(", ", allowed));
            throw new HttpProblem(405, "method_not_allowed", method + " is not served on /" + String.join("/", rest)
                    + " (allowed: " + String.join(", ", allowed) + ")");
        }
        Route route = matched;
        Map<String, String> captured = vars;
        return registry.graph(graphId).flatMap(graph -> Mono.defer(() -> route.handler().handle(ex, graph, captured))
                .onErrorResume(e -> {
                    logIfInternal(e);
                    return ex.error(e, entityKinds(graph));
                }));
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

    private static List<String> segments(String path) {
        List<String> out = new ArrayList<>();
        for (String part : path.split("/")) {
            if (!part.isEmpty()) out.add(part);
        }
        return out;
    }

    /** Server faults are logged off the event loop (the log writes to a stream, which may block). */
    private static void logIfInternal(Throwable e) {
        if (ErrorBodies.of(e).status() >= 500) {
            Schedulers.boundedElastic().schedule(() -> LOG.warn("request failed: {}", e.toString(), e));
        }
    }

    private static List<Route> concat(List<Route> a, List<Route> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).collect(Collectors.toUnmodifiableList());
    }
}
