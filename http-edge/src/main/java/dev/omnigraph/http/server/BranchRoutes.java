package dev.omnigraph.http.server;

import dev.omnigraph.engine.BranchOperations;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.http.wire.Shapes;
import dev.omnigraph.storage.manifest.GraphBranches;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * Branch controls: {@code POST /branches} ({@code {name, from?}}) and {@code DELETE /branches/{branch}} (the name
 * percent-encoded, so {@code team%2Fa} is the branch {@code team/a}). Listing is {@code GET /branches} with the
 * other reads. Bad names are 400 before any physical step, an existing name 409, an unknown branch 404.
 */
final class BranchRoutes {
    private static final Set<String> CREATE_FIELDS = Set.of("name", "from");

    private BranchRoutes() {
    }

    static List<Route> routes() {
        return List.of(
                new Route("POST", "branches", BranchRoutes::create,
                        ApiDoc.of("createBranch", "Create a branch from main, another branch or a commit; lazy: no "
                                + "table is copied", "BranchCreateOutput").body("BranchCreateRequest").statuses(404, 409, 503)),
                new Route("DELETE", "branches/{branch}", BranchRoutes::delete,
                        ApiDoc.of("deleteBranch", "Delete a branch (never main, never one other branches fork from)",
                                "BranchDeleteOutput").statuses(400, 404, 409, 503)));
    }

    private static Mono<Void> create(Exchange ex, Omnigraph graph, Map<String, String> vars) {
        return ex.jsonBody(false).flatMap(body -> {
            ReadRoutes.onlyFields(body, CREATE_FIELDS, "a branch create takes name and from");
            String name = ReadRoutes.text(body, "name");
            if (name == null) throw HttpProblem.badRequest("the request body needs 'name'");
            Optional<String> from = Optional.ofNullable(ReadRoutes.text(body, "from"));
            return graph.branches().create(BranchOperations.Create.of(name).from(from.orElse(GraphBranches.MAIN)))
                    .flatMap(created -> ex.json(200, Shapes.branchCreated(
                    graph.location().displayUri(), from.orElse(GraphBranches.MAIN), name, ex.actor)));
        });
    }

    private static Mono<Void> delete(Exchange ex, Omnigraph graph, Map<String, String> vars) {
        String name = vars.get("branch");
        return graph.branches().delete(name).flatMap(deleted -> ex.json(200, Shapes.branchDeleted(
                graph.location().displayUri(), name, ex.actor, deleted.leftovers())));
    }
}
