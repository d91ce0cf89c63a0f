package dev.omnigraph.http.server;

import dev.omnigraph.engine.MaintenanceOperations;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.http.wire.IndexShapes;
import dev.omnigraph.storage.manifest.GraphBranches;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * {@code POST /indexes/ensure} ({@code {branch?}}): builds the indexes the schema implies that the branch's tables
 * lack, as one commit (none when nothing is missing).
 */
final class IndexRoutes {
    private static final Set<String> FIELDS = Set.of("branch");

    private IndexRoutes() {
    }

    static List<Route> routes() {
        return List.of(new Route("POST", "indexes/ensure", IndexRoutes::ensure,
                ApiDoc.of("ensureIndexes", "Build the indexes the schema implies that a branch's tables lack (one "
                        + "commit; none when nothing is missing)", "IndexEnsureOutput")
                        .body("IndexEnsureRequest").statuses(404, 409, 503)));
    }

    private static Mono<Void> ensure(Exchange ex, Omnigraph graph, Map<String, String> vars) {
        return ex.jsonBody(true).flatMap(body -> {
            ReadRoutes.onlyFields(body, FIELDS, "an index ensure takes branch");
            String branch = Optional.ofNullable(ReadRoutes.text(body, "branch")).orElse(GraphBranches.MAIN);
            return graph.maintenance().ensureIndexes(new MaintenanceOperations.Target(branch, ex.actor))
                    .flatMap(result -> ex.json(200, IndexShapes.ensured(result)));
        });
    }
}
