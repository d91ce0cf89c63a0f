package dev.omnigraph.http.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.Omnigraph;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * What serving a root shared with other servers adds to one per-graph request: a write goes to the lease holder
 * ({@link WriteForwarder}), a read that names a minimum commit waits until it is visible ({@link Freshness}).
 */
final class FollowerRouting {
    private final WriteForwarder forwarder;
    private final Freshness freshness;

    FollowerRouting(ScaleOut settings, GraphRegistry registry, MeterRegistry meters) {
        this.forwarder = new WriteForwarder(settings, meters);
        this.freshness = new Freshness(settings, registry, meters).start();
    }

    /** Serves {@code route} on {@code graph}: {@code local} is how this server alone would serve it. */
    Mono<Void> serve(Exchange ex, String graphId, Omnigraph graph, Route route, Map<String, String> vars,
                     Mono<Void> local) {
        if (route.path().equals("healthz")) {
            // The graph's base path answers what the top-level /healthz does, freshness included.
            return ex.json(200, health(dev.omnigraph.http.wire.Shapes.health()));
        }
        return WriteForwarder.needsLease(route, graph, vars).flatMap(write -> {
            if (write) return forwarder.serve(ex, graph, local);
            Optional<String> minCommit = Freshness.minCommit(ex);
            return minCommit.map(commit -> freshness.awaitCommit(graphId, graph, commit).then(local)).orElse(local);
        });
    }

    /** {@code /healthz} with the freshness report. */
    ObjectNode health(ObjectNode health) {
        return freshness.describe(health);
    }

    void close() {
        freshness.stop();
        forwarder.close();
    }
}
