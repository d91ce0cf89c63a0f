package dev.omnigraph.http.server;

import dev.omnigraph.engine.BranchOperations;
import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.http.wire.MergeShapes;
import dev.omnigraph.storage.manifest.GraphBranches;
import java.util.List;
import java.util.Map;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * {@code POST /branches/merge} with {@code {source, target?, delete_branch?}}: merges the source's head into the
 * target (main by default) as one commit. Conflicts are 409 with {@code merge_conflicts[]} and nothing published.
 */
final class MergeRoutes {
    private static final Set<String> FIELDS = Set.of("source", "target", "delete_branch");

    private MergeRoutes() {
    }

    static List<Route> routes() {
        return List.of(new Route("POST", "branches/merge", MergeRoutes::merge,
                ApiDoc.of("mergeBranch", "Merge a branch into another (main by default) as one three-way commit; "
                        + "conflicts are 409 with merge_conflicts and nothing published", "BranchMergeOutput")
                        .body("BranchMergeRequest").statuses(404, 409, 503)));
    }

    private static Mono<Void> merge(Exchange ex, Omnigraph graph, Map<String, String> vars) {
        return ex.jsonBody(false).flatMap(body -> {
            ReadRoutes.onlyFields(body, FIELDS, "a merge takes source, target and delete_branch");
            String source = ReadRoutes.text(body, "source");
            if (source == null) throw HttpProblem.badRequest("the request body needs 'source'");
            String target = ReadRoutes.text(body, "target");
            JsonNode delete = body.get("delete_branch");
            if (delete != null && !delete.isNull() && !delete.isBoolean()) {
                throw HttpProblem.badRequest("'delete_branch' must be a boolean");
            }
            boolean deleteSource = delete != null && delete.asBoolean(false);
            return graph.branches().merge(new BranchOperations.Merge(source, target == null ? GraphBranches.MAIN : target,
                            deleteSource, ex.actor))
                    .flatMap(result -> ex.json(200, MergeShapes.result(result, ex.actor)));
        });
    }
}
