package dev.omnigraph.http.server;

import dev.omnigraph.engine.SchemaOperations;
import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.http.wire.SchemaShapes;
import java.util.List;
import reactor.core.publisher.Mono;

/** {@code POST /schema/apply}: applies a new {@code .pg} to the graph ({@code GET /schema} is a read route). */
final class SchemaRoutes {
    private SchemaRoutes() {
    }

    static List<Route> routes() {
        return List.of(new Route("POST", "schema/apply", SchemaRoutes::apply,
                ApiDoc.of("applySchema", "Apply a new .pg schema as one commit (refused while any branch but main "
                        + "exists; data-losing steps need allow_data_loss)", "SchemaApplyOutput")
                        .body("SchemaApplyRequest").statuses(409, 503)));
    }

    private static Mono<Void> apply(Exchange ex, Omnigraph graph, java.util.Map<String, String> vars) {
        return ex.jsonBody(false).flatMap(body -> {
            String source = ReadRoutes.text(body, "schema_source");
            if (source == null) throw HttpProblem.badRequest("the request body needs 'schema_source'");
            JsonNode flag = body.get("allow_data_loss");
            if (flag != null && !flag.isNull() && !flag.isBoolean()) {
                throw HttpProblem.badRequest("'allow_data_loss' must be a boolean");
            }
            boolean allowDataLoss = flag != null && flag.asBoolean(false);
            return graph.schema().apply(new SchemaOperations.Apply(source, allowDataLoss, ex.actor))
                    .flatMap(result -> graph.snapshot(ReadTarget.main()).flatMap(snapshot -> ex.json(200,
                            SchemaShapes.result(graph.location().displayUri(), result.applied(), snapshot.manifestVersion(),
                                    result.steps(), result.commit().map(c -> c.id())))));
        });
    }
}
