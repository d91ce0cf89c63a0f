package dev.omnigraph.http.server;

import dev.omnigraph.engine.MaintenanceOperations;
import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.http.wire.MaintenanceShapes;
import dev.omnigraph.storage.manifest.GraphBranches;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * {@code POST /optimize} and {@code POST /repair}: the maintenance verbs for a graph a server holds open (the
 * CLI verbs need the writer lock the server owns).
 */
final class MaintenanceRoutes {
    private static final Set<String> FIELDS = Set.of("branch");

    private MaintenanceRoutes() {
    }

    static List<Route> routes() {
        return List.of(
                new Route("POST", "optimize", MaintenanceRoutes::optimize,
                        ApiDoc.of("optimize", "Compact a branch's own tables and bring their indexes up to the schema "
                                + "as one commit (tables already compact and fully indexed, and tables with uncovered "
                                + "drift, are left alone)", "OptimizeOutput").body("OptimizeRequest").statuses(404, 409, 503)),
                new Route("POST", "repair", MaintenanceRoutes::repair,
                        ApiDoc.of("repair", "Classify table versions no tracked write published; confirm publishes "
                                + "compaction-only drift, confirm+force any drift ahead of its pin", "RepairOutput")
                                .body("RepairRequest").statuses(409, 503)));
    }

    private static Mono<Void> optimize(Exchange ex, Omnigraph graph, Map<String, String> vars) {
        return ex.jsonBody(true).flatMap(body -> {
            ReadRoutes.onlyFields(body, FIELDS, "an optimize takes branch");
            String branch = Optional.ofNullable(ReadRoutes.text(body, "branch")).orElse(GraphBranches.MAIN);
            return graph.maintenance().optimize(new MaintenanceOperations.Target(branch, ex.actor))
                    .flatMap(result -> ex.json(200, MaintenanceShapes.optimize(result)));
        });
    }

    private static Mono<Void> repair(Exchange ex, Omnigraph graph, Map<String, String> vars) {
        return ex.jsonBody(true).flatMap(body -> graph.maintenance()
                .repair(MaintenanceOperations.RepairDrift.of(flag(body, "confirm"), flag(body, "force")))
                .flatMap(drifts -> ex.json(200, MaintenanceShapes.repair(drifts))));
    }

    private static boolean flag(JsonNode body, String name) {
        JsonNode value = body.get(name);
        if (value != null && !value.isNull() && !value.isBoolean()) {
            throw HttpProblem.badRequest("'" + name + "' must be a boolean");
        }
        return value != null && value.asBoolean(false);
    }
}
