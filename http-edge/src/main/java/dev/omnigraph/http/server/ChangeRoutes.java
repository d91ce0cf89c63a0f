package dev.omnigraph.http.server;

import dev.omnigraph.engine.ChangeOperations;
import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.diff.ChangeFilter;
import dev.omnigraph.engine.diff.FeedStart;
import dev.omnigraph.http.wire.ChangeShapes;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.storage.manifest.GraphBranches;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * The change routes: a commit's entity diff ({@code GET /commits/{commit_id}/changes}), the change feed of a branch
 * ({@code GET /changes}) and the baseline handshake that starts one ({@code POST /changes/baseline}). Unknown query
 * parameters and body fields are refused (400), as the reference does on these routes.
 */
final class ChangeRoutes {
    private static final Set<String> COMMIT_PARAMS = Set.of("page_token", "limit", "kind", "type", "op");
    private static final Set<String> FEED_PARAMS = Set.of("branch", "cursor", "start", "page_token", "limit", "kind",
            "type", "op");
    private static final Set<String> BASELINE_FIELDS = Set.of("branch", "kind", "type", "op");

    private ChangeRoutes() {
    }

    static List<Route> routes() {
        return List.of(
                new Route("GET", "commits/{commit_id}/changes", ChangeRoutes::commitChanges,
                        filters(ApiDoc.of("getCommitChanges", "A commit's entity changes against its first parent, paged",
                                "CommitChangesOutput").param("page_token", "Continues the previous page of this diff")
                                .param("limit", "Changes per page (default 1000, at most 8192)"))
                                .statuses(400, 404, 409, 413)),
                new Route("GET", "changes", ChangeRoutes::poll,
                        filters(ApiDoc.of("pollChanges", "One bounded page of a branch's change feed", "ChangeFeedOutput")
                                .param("branch", "Branch whose first-parent history is polled (default main)")
                                .param("cursor", "Durable cursor from a previous terminal page")
                                .param("start", "now (default), beginning or after:<commit_id>")
                                .param("page_token", "Continues this poll's captured cut")
                                .param("limit", "Changes per page (default 1000, at most 8192)"))
                                .statuses(400, 404, 409, 410, 413)),
                new Route("POST", "changes/baseline", ChangeRoutes::baseline,
                        ApiDoc.of("changeBaseline", "The branch head as NDJSON, then {\"baseline\":{snapshot_commit_id,"
                                + " resume_cursor}}", null).respondsWith(ApiDoc.NDJSON).body("ChangeBaselineRequest")
                                .statuses(400, 404, 413)));
    }

    private static ApiDoc filters(ApiDoc doc) {
        return doc.param("kind", "Repeatable: node | edge").param("type", "Repeatable: a node or edge type name")
                .param("op", "Repeatable: insert | update | delete");
    }

    private static Mono<Void> commitChanges(Exchange ex, Omnigraph graph, Map<String, String> vars) {
        requireKnownParams(ex, COMMIT_PARAMS);
        return graph.changes().commit(new ChangeOperations.CommitPage(vars.get("commit_id"), filter(ex),
                        ex.param("page_token"), limit(ex)))
                .flatMap(page -> ex.json(200, ChangeShapes.commitChanges(page)));
    }

    private static Mono<Void> poll(Exchange ex, Omnigraph graph, Map<String, String> vars) {
        requireKnownParams(ex, FEED_PARAMS);
        FeedStart start = FeedStart.of(ex.param("cursor"), ex.param("start"), ex.param("page_token"));
        return graph.changes().poll(new ChangeOperations.Poll(ex.param("branch").orElse(GraphBranches.MAIN), start,
                        filter(ex), limit(ex)))
                .flatMap(page -> ex.json(200, ChangeShapes.feed(page)));
    }

    private static Mono<Void> baseline(Exchange ex, Omnigraph graph, Map<String, String> vars) {
        return ex.jsonBody(true).flatMap(body -> {
            for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (!BASELINE_FIELDS.contains(name)) {
                    throw HttpProblem.badRequest("unknown field '" + name + "' (baseline takes branch, kind, type and op)");
                }
            }
            String branch = ReadRoutes.text(body, "branch");
            ChangeFilter filter = ChangeFilter.parse(strings(body, "kind"), strings(body, "type"), strings(body, "op"));
            return Streaming.ndjson(ex, graph.changes().baseline(branch == null ? GraphBranches.MAIN : branch, filter),
                    Routes.entityKinds(graph));
        });
    }

    private static ChangeFilter filter(Exchange ex) {
        return ChangeFilter.parse(values(ex, "kind"), values(ex, "type"), values(ex, "op"));
    }

    private static List<String> values(Exchange ex, String name) {
        return ex.query.getOrDefault(name, List.of()).stream().filter(v -> !v.isEmpty()).toList();
    }

    private static Optional<Integer> limit(Exchange ex) {
        return ex.param("limit").map(text -> {
            try {
                return Integer.parseInt(text);
            } catch (NumberFormatException e) {
                throw HttpProblem.badRequest("limit must be a positive integer, not '" + text + "'");
            }
        });
    }

    private static void requireKnownParams(Exchange ex, Set<String> known) {
        for (String name : ex.query.keySet()) {
            if (!known.contains(name)) {
                throw HttpProblem.badRequest("unknown query parameter '" + name + "' (this route takes "
                        + String.join(", ", known.stream().sorted().toList()) + ")");
            }
        }
    }

    /** A body field that is one string or an array of strings (absent = none). */
    private static List<String> strings(JsonNode body, String field) {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) return List.of();
        if (value.isTextual()) return List.of(value.asText());
        if (!value.isArray()) throw HttpProblem.badRequest("'" + field + "' must be an array of strings");
        List<String> out = new ArrayList<>();
        for (JsonNode item : value) {
            if (!item.isTextual()) throw HttpProblem.badRequest("'" + field + "' must be an array of strings");
            out.add(item.asText());
        }
        return out;
    }
}
