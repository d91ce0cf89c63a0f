package dev.omnigraph.engine;

import dev.omnigraph.engine.cleanup.Cleanup;
import dev.omnigraph.engine.cleanup.CleanupOptions;
import dev.omnigraph.engine.cleanup.CleanupReport;
import dev.omnigraph.engine.maintain.OptimizeResult;
import dev.omnigraph.engine.maintain.Optimizer;
import dev.omnigraph.engine.maintain.Repair;
import dev.omnigraph.storage.ValidText;
import dev.omnigraph.storage.error.BadRequest;
import java.util.List;
import java.util.Optional;
import reactor.core.publisher.Mono;

/** The maintenance verbs of an {@link Omnigraph} handle: drift repair, optimize and version cleanup. */
final class GraphUpkeep {
    private final Omnigraph graph;

    GraphUpkeep(Omnigraph graph) {
        this.graph = graph;
    }

    Mono<List<Repair.Drift>> repair(boolean confirm, boolean force) {
        return Mono.defer(() -> {
            if (force && !confirm) {
                throw new BadRequest("repair --force needs --confirm");
            }
            if (confirm) {
                graph.requireWritable("repair --confirm");
            }
            return new Repair(graph.writeContext()).run(confirm, force);
        });
    }

    Mono<OptimizeResult> optimize(String branch, Optional<String> actor) {
        return Mono.defer(() -> {
            graph.requireWritable("optimize");
            actor.ifPresent(id -> ValidText.require("actor id", id));
            return new Optimizer(graph.writeContext()).run(branch, actor);
        });
    }

    Mono<CleanupReport> cleanup(CleanupOptions options) {
        return Mono.defer(() -> {
            if (options.confirm()) {
                graph.requireWritable("cleanup --confirm");
            }
            return new Cleanup(graph.writeContext(), graph.objectStore()).run(options);
        });
    }
}
