package dev.omnigraph.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.http.policy.PolicyAction;
import dev.omnigraph.http.wire.HttpProblem;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * The one enforcement point of the HTTP edge: a request's route is mapped to its questions
 * ({@link RouteAccess}) and every one is decided before the route runs. Without a policy in force nothing here
 * changes a request.
 */
final class RouteGate {
    private RouteGate() {
    }

    /** The request under the policies in force now, which it keeps to its end; unchanged without a policy. */
    static Exchange gate(Exchange ex, ServerPolicy policy) {
        ServerPolicy.Policies now = policy.current();
        return now.enabled() ? ex.gated(new Gate(policy, now, ex.actor, null)) : ex;
    }

    /**
     * Decides the route's questions, reading its JSON body first when they depend on it; emits the request to serve
     * (holding that body), or fails with 403 naming the first action denied.
     */
    static Mono<Exchange> decide(Route route, Map<String, String> vars, Exchange ex) {
        Optional<Gate> gate = ex.gate();
        if (gate.isEmpty()) return Mono.just(ex);
        RouteAccess.Rule rule = RouteAccess.of(route);
        Mono<Optional<JsonNode>> body = switch (rule.body()) {
            case NONE -> Mono.just(Optional.empty());
            case JSON -> ex.jsonBody(false).map(Optional::of);
            case OPTIONAL_JSON -> ex.jsonBody(true).map(Optional::of);
            case LOAD_ENVELOPE -> ex.loadEnvelope().map(Optional::of);
        };
        return body.map(read -> {
            Exchange ready = read.map(ex::withBody).orElse(ex);
            for (RouteAccess.Ask ask : rule.asks().of(ready, vars, read.orElse(null))) {
                gate.get().require(ask.action(), ask.branch(), ask.target());
            }
            return ready;
        });
    }

    /**
     * An unknown graph is 404 only for an actor allowed {@code graph_list}; anyone else gets the 403 a graph they
     * may not see would give, so error codes do not enumerate graphs.
     */
    static Mono<Omnigraph> hideUnknown(Mono<Omnigraph> graph, Exchange ex) {
        Gate gate = ex.gate().orElseThrow();
        return graph.onErrorMap(e -> e instanceof HttpProblem p && p.status() == 404
                        && !gate.allows(PolicyAction.GRAPH_LIST, null, null),
                e -> {
                    gate.owner().audit(gate.request(PolicyAction.GRAPH_LIST, null, null),
                            dev.omnigraph.http.policy.Decision.deny("an unknown graph, asked by an actor without graph_list"));
                    return new HttpProblem(403, "forbidden", "not allowed: graph '" + gate.graph() + "'");
                });
    }
}
