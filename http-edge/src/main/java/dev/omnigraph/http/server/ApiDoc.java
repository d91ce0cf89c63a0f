package dev.omnigraph.http.server;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the OpenAPI document says about one route, declared beside the route itself so the document is generated
 * from the table the server dispatches on. {@code operationId} is upstream's unprefixed id (as a single-graph
 * server and the SDK name it); per-graph routes under {@code /graphs/{graph_id}} get upstream's {@code cluster_}
 * prefix. {@code statuses} are the route's own; the statuses every request can get are added by {@link OpenApi}.
 */
record ApiDoc(String operationId, String summary, String requestSchema, String requestMedia, String responseSchema,
              String responseMedia, List<QueryParam> queryParams, Set<Integer> statuses, boolean idempotent,
              boolean conditional, String successor) {
    static final String JSON = "application/json";
    static final String NDJSON = "application/x-ndjson";

    /** A query-string parameter: its name and what it means. */
    record QueryParam(String name, String description) {
    }

    ApiDoc {
        queryParams = List.copyOf(queryParams);
        statuses = Set.copyOf(statuses);
    }

    static ApiDoc of(String operationId, String summary, String responseSchema) {
        return new ApiDoc(operationId, summary, null, null, responseSchema, JSON, List.of(), Set.of(), false, false, null);
    }

    /** The same description under another operation id and summary (for an alias route). */
    ApiDoc alias(String otherId, String otherSummary) {
        return new ApiDoc(otherId, otherSummary, requestSchema, requestMedia, responseSchema, responseMedia, queryParams,
                statuses, idempotent, conditional, successor);
    }

    /** A JSON request body of this schema (routes with a body also answer 413 and 415). */
    ApiDoc body(String schema) {
        return new ApiDoc(operationId, summary, schema, JSON, responseSchema, responseMedia, queryParams, statuses,
                idempotent, conditional, successor);
    }

    /** A raw request body of this media type, streamed. */
    ApiDoc rawBody(String media) {
        return new ApiDoc(operationId, summary, null, media, responseSchema, responseMedia, queryParams, statuses,
                idempotent, conditional, successor);
    }

    ApiDoc respondsWith(String media) {
        return new ApiDoc(operationId, summary, requestSchema, requestMedia, responseSchema, media, queryParams, statuses,
                idempotent, conditional, successor);
    }

    ApiDoc param(String name, String description) {
        List<QueryParam> more = new java.util.ArrayList<>(queryParams);
        more.add(new QueryParam(name, description));
        return new ApiDoc(operationId, summary, requestSchema, requestMedia, responseSchema, responseMedia, more, statuses,
                idempotent, conditional, successor);
    }

    ApiDoc statuses(Integer... more) {
        Set<Integer> all = new TreeSet<>(statuses);
        all.addAll(List.of(more));
        return new ApiDoc(operationId, summary, requestSchema, requestMedia, responseSchema, responseMedia, queryParams, all,
                idempotent, conditional, successor);
    }

    /** A write that honours {@code Idempotency-Key} (and answers 422 when a key is reused for another request). */
    ApiDoc takesIdempotencyKey() {
        return new ApiDoc(operationId, summary, requestSchema, requestMedia, responseSchema, responseMedia, queryParams,
                statuses, true, conditional, successor).statuses(422);
    }

    /** A conditional write: {@code Omnigraph-If-Graph-Commit} required, 412 when the head moved. */
    ApiDoc takesIfGraphCommit() {
        return new ApiDoc(operationId, summary, requestSchema, requestMedia, responseSchema, responseMedia, queryParams,
                statuses, idempotent, true, successor).statuses(412);
    }

    /** Deprecated in favour of the sibling route {@code successorPath}: sent as {@code Deprecation} and {@code Link}. */
    ApiDoc deprecatedFor(String successorPath) {
        return new ApiDoc(operationId, summary, requestSchema, requestMedia, responseSchema, responseMedia, queryParams,
                statuses, idempotent, conditional, successorPath);
    }
}
