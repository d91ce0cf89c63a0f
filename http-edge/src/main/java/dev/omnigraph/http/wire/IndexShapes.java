package dev.omnigraph.http.wire;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.index.EnsureResult;

/** JSON of {@code index ensure}, shared by {@code POST /indexes/ensure} and {@code index ensure --json}. */
public final class IndexShapes {
    private IndexShapes() {
    }

    /** {@code {branch, built: {table_key: [index names]}, commit: CommitOutput | null}}. */
    public static ObjectNode ensured(EnsureResult result) {
        ObjectNode out = Json.object().put("branch", result.branch());
        ObjectNode built = out.putObject("built");
        result.built().forEach((table, names) -> names.forEach(built.withArray(table)::add));
        out.set("commit", result.commit().map(Shapes::commit).map(c -> (com.fasterxml.jackson.databind.JsonNode) c)
                .orElse(com.fasterxml.jackson.databind.node.NullNode.getInstance()));
        return out;
    }
}
