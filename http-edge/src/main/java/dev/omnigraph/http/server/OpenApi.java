package dev.omnigraph.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.http.wire.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The OpenAPI 3.1 document of what a server serves, generated from its route tables ({@link Routes}): one
 * operation per route, with its {@link ApiDoc}. Only the shared schemas ({@code components}) are written by hand,
 * in {@code openapi-components.json}. Per-graph routes are listed under {@code /graphs/{graph_id}} with upstream's
 * {@code cluster_} operation ids; a single-graph server also lists them at the root with the unprefixed ids (the
 * SDK's function names).
 */
final class OpenApi {
    private static final String RESOURCE = "/dev/omnigraph/http/openapi-components.json";
    private static final String PREFIX = "/graphs/{graph_id}";
    private static final String CLUSTER = "cluster_";
    private static final String ERROR = "#/components/schemas/ErrorOutput";
    /** Any request can be refused before routing: bad target (400), wrong method, too long (414, 431), busy (503). */
    private static final List<Integer> EVERY_REQUEST = List.of(400, 405, 414, 431, 500, 503);
    private static final Map<Integer, String> MEANING = Map.ofEntries(
            Map.entry(400, "Bad request: malformed target or JSON, parse or type error (with position), validation failure"),
            Map.entry(401, "Missing or unknown bearer token"),
            Map.entry(404, "Unknown graph, branch, commit, stored query or route"),
            Map.entry(405, "Method not allowed on this path (Allow lists the ones that are)"),
            Map.entry(409, "key_conflict, read_set_conflict, manifest_conflict or another conflict"),
            Map.entry(412, "precondition_failure: the branch head is not the expected commit; nothing written"),
            Map.entry(413, "resource_limit: body, query or write above a limit"),
            Map.entry(414, "Request line too long"),
            Map.entry(415, "Unsupported content type"),
            Map.entry(416, "Byte range not satisfiable (Content-Range: bytes */length)"),
            Map.entry(422, "idempotency_key_reused: the Idempotency-Key was used for a different request"),
            Map.entry(431, "Request headers too large"),
            Map.entry(500, "Storage fault or internal error"),
            Map.entry(503, "recovery_required, query_timeout, storage overloaded, too many connections or shutting down"),
            Map.entry(504, "min_commit: the commit named by X-Omnigraph-Min-Commit was not visible here in time"));

    private OpenApi() {
    }

    /** Reads the shared schemas (blocking: called once at start-up) and describes {@code routes}. */
    static JsonNode document(Routes routes, boolean singleGraph, boolean auth) {
        ObjectNode doc;
        try (InputStream in = OpenApi.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException(RESOURCE + " is missing from the jar");
            doc = (ObjectNode) Json.MAPPER.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
        ObjectNode paths = Json.object();
        for (Route route : routes.open()) add(paths, "/" + route.path(), route, route.doc().operationId(), false, false);
        for (Route route : routes.top()) add(paths, "/" + route.path(), route, route.doc().operationId(), false, auth);
        for (Route route : routes.perGraph()) {
            add(paths, PREFIX + "/" + route.path(), route, CLUSTER + route.doc().operationId(), true, auth);
        }
        if (singleGraph) {
            for (Route route : routes.perGraph()) {
                String path = "/" + route.path();
                // Per method: one path can carry several (GET and POST /branches).
                if (!paths.path(path).has(route.method().toLowerCase(Locale.ROOT))) {
                    add(paths, path, route, route.doc().operationId(), false, auth);
                }
            }
        }
        doc.set("paths", paths);
        if (auth) {
            doc.putArray("security").addObject().putArray("bearer");
            for (Route route : routes.open()) {
                ((ObjectNode) paths.path("/" + route.path()).path(route.method().toLowerCase(Locale.ROOT))).putArray("security");
            }
        }
        return doc;
    }

    private static void add(ObjectNode paths, String path, Route route, String operationId, boolean graphScoped,
                            boolean auth) {
        ApiDoc api = route.doc();
        ObjectNode pathItem = paths.has(path) ? (ObjectNode) paths.get(path) : paths.putObject(path);
        ObjectNode op = pathItem.putObject(route.method().toLowerCase(Locale.ROOT));
        op.put("operationId", operationId);
        op.put("summary", api.summary());
        if (api.successor() != null) op.put("deprecated", true);
        ArrayNode params = Json.MAPPER.createArrayNode();
        if (graphScoped) pathParam(params, "graph_id").putObject("schema").put("type", "string").put("maxLength", 64);
        for (String segment : route.path().split("/")) {
            if (segment.startsWith("{")) {
                pathParam(params, segment.substring(1, segment.length() - 1)).putObject("schema").put("type", "string");
            }
        }
        for (ApiDoc.QueryParam q : api.queryParams()) {
            params.addObject().put("name", q.name()).put("in", "query").put("required", false)
                    .put("description", q.description()).putObject("schema").put("type", "string");
        }
        if (api.conditional()) {
            header(params, WriteRoutes.IF_GRAPH_COMMIT, true, "The graph_commit_id the write expects as the branch head");
        }
        if (api.idempotent()) {
            header(params, WriteRoutes.IDEMPOTENCY_KEY, false, "Makes the write idempotent: a retry with the same key "
                    + "and request answers the first outcome (with Idempotent-Replayed: true) and writes nothing");
        }
        boolean minCommit = graphScoped || !route.path().equals("healthz") && !route.path().equals("openapi.json")
                && !route.path().equals("graphs") && !route.path().equals("metrics");
        if (minCommit && WriteForwarder.mayRead(route)) {
            header(params, Freshness.MIN_COMMIT, false, "Serve the read only once this graph_commit_id (one a write "
                    + "answered) is visible here; 504 after the server's --min-commit-timeout");
            params.addObject().put("name", Freshness.MIN_COMMIT_PARAM).put("in", "query").put("required", false)
                    .put("description", "As the " + Freshness.MIN_COMMIT + " header").putObject("schema")
                    .put("type", "string");
        }
        if (!params.isEmpty()) op.set("parameters", params);
        if (api.requestMedia() != null) {
            ObjectNode body = op.putObject("requestBody");
            body.put("required", api.requestSchema() != null && !api.requestSchema().equals("StoredQueryRequest"));
            ObjectNode media = body.putObject("content").putObject(api.requestMedia());
            if (api.requestSchema() != null) media.putObject("schema").put("$ref", ref(api.requestSchema()));
            else media.putObject("schema").put("type", "string");
        }
        ObjectNode responses = op.putObject("responses");
        ObjectNode ok = responses.putObject("200").put("description", "OK");
        if (api.successor() != null) {
            ObjectNode headers = ok.putObject("headers");
            headers.putObject(Routes.DEPRECATION).put("description", "Always true: this route is deprecated")
                    .putObject("schema").put("type", "string");
            headers.putObject("Link").put("description", "<" + api.successor() + ">; rel=\"successor-version\"")
                    .putObject("schema").put("type", "string");
        }
        ObjectNode content = ok.putObject("content").putObject(api.responseMedia());
        if (api.responseSchema() != null) content.putObject("schema").put("$ref", ref(api.responseSchema()));
        else if (!api.responseMedia().equals(ApiDoc.JSON)) content.putObject("schema").put("type", "string");
        else content.putObject("schema").put("type", "object");
        TreeSet<Integer> statuses = statuses(api, graphScoped, auth);
        if (minCommit && WriteForwarder.mayRead(route)) statuses.add(504);
        for (int status : statuses) {
            responses.putObject(Integer.toString(status)).put("description", MEANING.get(status))
                    .putObject("content").putObject(ApiDoc.JSON).putObject("schema").put("$ref", ERROR);
        }
    }

    /** The route's own statuses and those every request (and every graph's request, and every body) can get. */
    static TreeSet<Integer> statuses(ApiDoc api, boolean graphScoped, boolean auth) {
        TreeSet<Integer> all = new TreeSet<>(EVERY_REQUEST);
        all.addAll(api.statuses());
        if (auth) all.add(401);
        if (graphScoped) all.add(404);
        if (api.requestMedia() != null) {
            all.add(413);
            all.add(415);
        }
        return all;
    }

    private static ObjectNode pathParam(ArrayNode params, String name) {
        return params.addObject().put("name", name).put("in", "path").put("required", true);
    }

    private static void header(ArrayNode params, String name, boolean required, String description) {
        params.addObject().put("name", name).put("in", "header").put("required", required)
                .put("description", description).putObject("schema").put("type", "string");
    }

    private static String ref(String schema) {
        return "#/components/schemas/" + schema;
    }

    /** For tests: the status codes documented for each method and path. */
    static Map<String, TreeSet<Integer>> documented(JsonNode doc) {
        Map<String, TreeSet<Integer>> out = new TreeMap<>();
        doc.path("paths").properties().forEach(path -> path.getValue().properties().forEach(op -> {
            TreeSet<Integer> codes = new TreeSet<>();
            op.getValue().path("responses").fieldNames().forEachRemaining(c -> codes.add(Integer.parseInt(c)));
            out.put(op.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey(), codes);
        }));
        return out;
    }
}
