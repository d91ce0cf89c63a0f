package dev.omnigraph.http.wire;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.evolve.PlanStep;
import java.util.List;
import java.util.Optional;

/** JSON of a schema plan / apply, shared by {@code POST /schema/apply} and {@code schema plan|apply --json}. */
public final class SchemaShapes {
    private SchemaShapes() {
    }

    public static ArrayNode steps(List<PlanStep> steps) {
        ArrayNode out = Json.array();
        for (PlanStep step : steps) {
            out.addObject().put("kind", step.kind().name().toLowerCase()).put("target", step.target())
                    .put("detail", step.detail()).put("effect", step.effect().name().toLowerCase());
        }
        return out;
    }

    /** {@code {uri, supported, applied, step_count, graph_manifest_version, steps}} as surfaces.md gives it. */
    public static ObjectNode result(String uri, boolean applied, long manifestVersion, List<PlanStep> steps,
                                    Optional<String> commitId) {
        ObjectNode out = Json.object().put("uri", uri).put("supported", true).put("applied", applied)
                .put("step_count", steps.size()).put("graph_manifest_version", manifestVersion);
        commitId.ifPresent(id -> out.put("graph_commit_id", id));
        out.set("steps", steps(steps));
        return out;
    }
}
