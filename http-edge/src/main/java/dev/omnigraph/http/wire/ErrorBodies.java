package dev.omnigraph.http.wire;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.storage.error.ErrorCode;
import dev.omnigraph.storage.error.IdempotencyKeyReused;
import dev.omnigraph.storage.error.KeyConflict;
import dev.omnigraph.storage.error.ManifestConflict;
import dev.omnigraph.storage.error.OmnigraphException;
import dev.omnigraph.storage.error.ParseError;
import dev.omnigraph.storage.error.PreconditionFailed;
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
 * precondition_failure, resource_limit, recovery_required, idempotency_key_reused (key, graph_commit_id).
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
            return reply(p.status(), p.code(), p.getMessage(), p.code() == null ? "error" : p.code());
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
        }
        return reply;
    }

    /** The reference's closed code set; null where the detail object alone discriminates (412, 503 recovery). */
    static String coarse(ErrorCode code) {
        return switch (code) {
            case PARSE_ERROR, VALIDATION_ERROR, BAD_REQUEST, RESOURCE_LIMIT -> "bad_request";
            case NOT_FOUND -> "not_found";
            case KEY_CONFLICT, READ_SET_CONFLICT, MANIFEST_CONFLICT, CONFLICT, IDEMPOTENCY_KEY_REUSED -> "conflict";
            case PRECONDITION_FAILURE, RECOVERY_REQUIRED -> null;
            case STORAGE_OVERLOADED -> "too_many_requests";
            case UNSUPPORTED_STAMP, STORAGE_FAULT -> "internal";
        };
    }

    private static Reply reply(int status, String code, String message, String wireCode) {
        ObjectNode body = Json.object();
        body.put("error", message == null ? "error" : message);
        if (code != null) body.put("code", code);
        return new Reply(status, body, wireCode, message);
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
