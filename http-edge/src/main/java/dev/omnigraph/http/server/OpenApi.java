package dev.omnigraph.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.http.wire.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The OpenAPI 3 document of what a server serves. The per-graph paths are written by hand in
 * {@code openapi.json}; a single-graph server also lists each of them at the root, and a server with tokens
 * requires bearer auth everywhere but {@code /healthz} and {@code /openapi.json}.
 */
final class OpenApi {
    private static final String RESOURCE = "/dev/omnigraph/http/openapi.json";
    private static final String PREFIX = "/graphs/{graph_id}";

    private OpenApi() {
    }

    /** Reads the resource (blocking: called at start-up) and adapts it to the serving mode. */
    static JsonNode document(boolean singleGraph, boolean auth) {
        ObjectNode doc;
        try (InputStream in = OpenApi.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException(RESOURCE + " is missing from the jar");
            doc = (ObjectNode) Json.MAPPER.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
        ObjectNode paths = (ObjectNode) doc.get("paths");
        if (singleGraph) {
            List<Map.Entry<String, JsonNode>> perGraph = new ArrayList<>();
            for (Map.Entry<String, JsonNode> e : paths.properties()) {
                if (e.getKey().startsWith(PREFIX + "/")) perGraph.add(e);
            }
            for (Map.Entry<String, JsonNode> entry : perGraph) {
                ObjectNode copy = entry.getValue().deepCopy();
                copy.properties().forEach(op -> withoutGraphId((ObjectNode) op.getValue()));
                paths.set(entry.getKey().substring(PREFIX.length()), copy);
            }
        }
        if (auth) {
            doc.putArray("security").addObject().putArray("bearer");
        }
        return doc;
    }

    /** A root-level copy has no graph_id parameter and a distinct operation id. */
    private static void withoutGraphId(ObjectNode operation) {
        JsonNode params = operation.get("parameters");
        if (params instanceof ArrayNode list) {
            for (Iterator<JsonNode> it = list.iterator(); it.hasNext(); ) {
                if ("graph_id".equals(it.next().path("name").asText())) it.remove();
            }
        }
        operation.put("operationId", operation.path("operationId").asText() + "AtRoot");
    }
}
