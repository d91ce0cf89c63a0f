package dev.omnigraph.http.wire;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.storage.error.ChangeDiffRefused;
import dev.omnigraph.storage.error.ChangeFeedGap;
import dev.omnigraph.storage.error.ErrorCode;
import dev.omnigraph.storage.error.IdempotencyKeyReused;
import dev.omnigraph.storage.error.KeyConflict;
import dev.omnigraph.storage.error.ManifestConflict;
import dev.omnigraph.storage.error.MergeConflicts;
import dev.omnigraph.storage.error.OmnigraphException;
import dev.omnigraph.storage.error.ParseError;
import dev.omnigraph.storage.error.PreconditionFailed;
import dev.omnigraph.storage.error.QueryTimeout;
import dev.omnigraph.storage.error.ReadSetChanged;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import dev.omnigraph.storage.error.ValidationError;
import java.util.function.Function;
import reactor.core.Exceptions;

/**
 * The one error shape of the edge, the reference's {@code ErrorOutput}:
 * {@code {"error": "<message>", "code": "<coarse code>", "<detail>": {…}}}. {@code code} is the reference's closed
 * set (bad_request, not_found, conflict, …) and is omitted for 412 and 503 recovery, where the detail object is the
 * discriminator. Details are named by the engine's wire code and carry its structured facts: parse_error (line,
 * column), validation_error (type, property, id), key_conflict, read_set_conflict, manifest_conflict,
 * precondition_failure, resource_limit, recovery_required, query_timeout (timeout_ms),
 * idempotency_key_reused (key, graph_commit_id), change_diff_refusal (reason, graph_commit_id, type_name),
 * change_feed_gap (first_unreadable_commit_id, cursor).
 */
public final class ErrorBodies {

    /** A status, a body, and the fine-grained code (the engine's wire name) the CLI prints as {@code error[code]}. */
    public record Reply(int status, ObjectNode body, String wireCode, String message) {
    }

    private ErrorBodies() {
    }

    /** Maps any failure; {@code entityKind} answers "node"/"edge" for a type name (null when unknown). */
    public static Reply of(Throwable failure, Function<String, String> entityKind) {
        Throwable t = Exceptions.unwrap(failure);
        while ((t instanceof java.util.concurrent.CompletionException || t instanceof java.util.concurrent.ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof HttpProblem p) {
            Reply reply = reply(p.status(), p.code(), p.getMessage(), p.code() == null ? "error" : p.code());
            if (p.detailName() != null) reply.body().set(p.detailName(), p.detail());
            return reply;
        }
        if (t instanceof OmnigraphException e) {
            return omnigraph(e, entityKind);
        }
        if (t instanceof UnsupportedOperationException) {
            return reply(501, "internal", "not implemented yet: " + t.getMessage(), "not_implemented");
        }
        String message = t.getMessage() == null ? t.getClass().getName() : t.getClass().getSimpleName() + ": " + t.getMessage();
        return reply(500, "internal", "internal error: " + message, "internal");
    }

    public static Reply of(Throwable failure) {
        return of(failure, name -> null);
    }

    /**
     * The body a server sends: {@link #of} plus {@code request_id}. A server fault ({@code code: internal}) says only
     * that one happened: its message may name files, datasets or native sources, and the server logs it in full
     * under the same request id.
     */
    public static Reply served(Throwable failure, Function<String, String> entityKind, String requestId) {
        Reply reply = of(failure, entityKind);
        if (!"internal".equals(reply.body().path("code").asText(null))) {
            reply.body().put("request_id", requestId);
            return reply;
        }
        String message = "internal error (" + reply.wireCode() + "); the server log has the details under request id "
                + requestId;
        Reply redacted = reply(reply.status(), "internal", message, reply.wireCode());
        redacted.body().put("request_id", requestId);
        return redacted;
    }

    private static Reply omnigraph(OmnigraphException e, Function<String, String> entityKind) {
        ErrorCode code = e.code();
        Reply reply = reply(code.httpStatus(), coarse(code), e.getMessage(), code.wireName());
        ObjectNode body = reply.body();
        if (e instanceof ParseError p) {
            ObjectNode d = body.putObject("parse_error");
            if (p.sourceName() != null) d.put("source", p.sourceName());
            d.put("line", p.line());
            d.put("column", p.column());
            if (p.subject() != null && !p.subject().isEmpty()) d.put("subject", p.subject());
        } else if (e instanceof ValidationError v) {
            ObjectNode d = body.putObject("validation_error");
            putIfPresent(d, "type_name", v.typeName());
            putIfPresent(d, "property", v.property());
            putIfPresent(d, "entity_id", v.entityId());
        } else if (e instanceof KeyConflict k) {
            ObjectNode d = body.putObject("key_conflict");
            putIfPresent(d, "entity_kind", entityKind.apply(k.typeName()));
            d.put("type_name", k.typeName());
            if (!k.ids().isEmpty()) d.put("entity_id", k.ids().get(0));
            k.ids().forEach(d.putArray("entity_ids")::add);
        } else if (e instanceof ReadSetChanged r) {
            member(body.putObject("read_set_conflict"), r.what(), r.expected(), r.actual());
        } else if (e instanceof ManifestConflict m) {
            member(body.putObject("manifest_conflict"), m.what(), m.expected(), m.actual());
        } else if (e instanceof PreconditionFailed p) {
            ObjectNode d = body.putObject("precondition_failure");
            d.put("expected", p.expected());
            putIfPresent(d, "actual", p.actual());
        } else if (e instanceof ResourceLimitExceeded r) {
            ObjectNode d = body.putObject("resource_limit");
            d.put("resource", r.limit());
            d.put("limit", r.allowed());
            d.put("actual", r.actual());
        } else if (e instanceof IdempotencyKeyReused i) {
            ObjectNode d = body.putObject("idempotency_key_reused");
            d.put("key", i.key());
            i.graphCommitId().ifPresent(id -> d.put("graph_commit_id", id));
        } else if (e instanceof RecoveryRequired r) {
            body.putObject("recovery_required").put("operation_id", r.operationId());
        } else if (e instanceof QueryTimeout q) {
            body.putObject("query_timeout").put("timeout_ms", q.timeout().toMillis());
        } else if (e instanceof ChangeDiffRefused r) {
            ObjectNode d = body.putObject("change_diff_refusal");
            d.put("reason", r.reason().wireName());
            d.put("graph_commit_id", r.graphCommitId());
            r.typeName().ifPresent(name -> d.put("type_name", name));
        } else if (e instanceof dev.omnigraph.storage.error.LeaseLost l) {
            body.putObject("lease_lost").put("writer_epoch", l.epoch());
        } else if (e instanceof ChangeFeedGap g) {
            ObjectNode d = body.putObject("change_feed_gap");
            d.put("first_unreadable_commit_id", g.firstUnreadableCommitId());
            g.cursor().ifPresent(cursor -> d.put("cursor", cursor));
        } else if (e instanceof MergeConflicts m) {
            var list = body.putArray("merge_conflicts");
            for (MergeConflicts.Conflict c : m.conflicts()) {
                ObjectNode d = list.addObject();
                d.put("entity_kind", c.entityKind());
                d.put("type_name", c.typeName());
                c.entityId().ifPresent(id -> d.put("entity_id", id));
                d.put("kind", c.kind().wireName());
                d.put("message", c.message());
            }
        }
        return reply;
    }

    /**
     * The reference's closed code set; null where the detail object alone discriminates (412, 503 recovery, 503
     * query timeout: the server is healthy and the same query will time out again, so it is not "overloaded").
     */
    static String coarse(ErrorCode code) {
        return switch (code) {
            case PARSE_ERROR, VALIDATION_ERROR, BAD_REQUEST, RESOURCE_LIMIT -> "bad_request";
            case NOT_FOUND -> "not_found";
            case FORBIDDEN -> "forbidden";
            case KEY_CONFLICT, READ_SET_CONFLICT, MANIFEST_CONFLICT, CONFLICT, IDEMPOTENCY_KEY_REUSED -> "conflict";
            case PRECONDITION_FAILURE, RECOVERY_REQUIRED, QUERY_TIMEOUT, CHANGE_FEED_GAP, LEASE_LOST -> null;
            case CHANGE_DIFF_REFUSAL, MERGE_CONFLICTS -> "conflict";
            case STORAGE_OVERLOADED -> "too_many_requests";
            case UNSUPPORTED_STAMP, STORAGE_FAULT -> "internal";
        };
    }

    /** Longest {@code error} message sent; a longer one (an echoed input of a megabyte) keeps its head only. */
    static final int MAX_MESSAGE_CHARS = 4_096;
    private static final int KEPT_CHARS = 3_000;

    private static Reply reply(int status, String code, String message, String wireCode) {
        ObjectNode body = Json.object();
        body.put("error", message == null ? "error" : shortened(message));
        if (code != null) body.put("code", code);
        return new Reply(status, body, wireCode, message);
    }

    /** The message, or its first {@link #KEPT_CHARS} characters and how many were cut (never half a surrogate pair). */
    static String shortened(String message) {
        if (message.length() <= MAX_MESSAGE_CHARS) return message;
        int keep = Character.isHighSurrogate(message.charAt(KEPT_CHARS - 1)) ? KEPT_CHARS - 1 : KEPT_CHARS;
        return message.substring(0, keep) + "… (" + (message.length() - keep) + " characters cut)";
    }

    private static void member(ObjectNode d, String member, String expected, String actual) {
        d.put("member", member);
        putIfPresent(d, "expected", expected);
        putIfPresent(d, "actual", actual);
    }

    private static void putIfPresent(ObjectNode d, String field, String value) {
        if (value != null && !value.isEmpty()) d.put(field, value);
    }
}
