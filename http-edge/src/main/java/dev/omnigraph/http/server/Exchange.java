package dev.omnigraph.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.http.wire.ErrorBodies;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * One request being served: its id, its parsed target, its actor, body readers that enforce the size limits, and
 * the one way responses are sent ({@link #send}), on the connection's event loop.
 */
final class Exchange {
    private static final Logger LOG = LoggerFactory.getLogger(Exchange.class);
    static final String REQUEST_ID = "X-Request-Id";
    static final String JSON = "application/json";
    static final String NDJSON = "application/x-ndjson";
    private static final Set<String> NDJSON_TYPES = Set.of(NDJSON, "application/ndjson", "application/jsonl",
            "application/x-jsonlines");

    final HttpServerRequest request;
    final HttpServerResponse response;
    final String requestId;
    final Map<String, List<String>> query;
    final Optional<String> actor;
    final ServerLimits limits;
    private final Scheduler loop;
    /** The request's authorization (null before the caller is known). */
    private final Gate gate;
    /** The JSON body, when it was read before the authorization decision. */
    private final JsonNode readBody;

    private Exchange(HttpServerRequest request, HttpServerResponse response, String requestId, Scheduler loop,
                     Map<String, List<String>> query, Optional<String> actor, ServerLimits limits) {
        this(request, response, requestId, loop, query, actor, limits, null, null);
    }

    private Exchange(HttpServerRequest request, HttpServerResponse response, String requestId, Scheduler loop,
                     Map<String, List<String>> query, Optional<String> actor, ServerLimits limits, Gate gate,
                     JsonNode readBody) {
        this.request = request;
        this.response = response;
        this.requestId = requestId;
        this.loop = loop;
        this.query = query;
        this.actor = actor;
        this.limits = limits;
        this.gate = gate;
        this.readBody = readBody;
    }

    /** The same request under {@code requestGate}, the one authorization every decision of it uses. */
    Exchange gated(Gate requestGate) {
        return new Exchange(request, response, requestId, loop, query, actor, limits, requestGate, readBody);
    }

    /** The JSON body read before the authorization decision, if it was (a forward sends it instead of the stream). */
    Optional<JsonNode> preReadBody() {
        return Optional.ofNullable(readBody);
    }

    /** The same request with its JSON body already read (for the authorization decision); the route reads it here. */
    Exchange withBody(JsonNode body) {
        return new Exchange(request, response, requestId, loop, query, actor, limits, gate, body);
    }

    /** The request's authorization; empty when no gate was set (no policy in force). */
    Optional<Gate> gate() {
        return Optional.ofNullable(gate);
    }

    /**
     * A request before its target is parsed or its caller known (parsing can fail; the failure still needs this to
     * be answered). Stamps the request id on the response at once, so every answer carries it.
     */
    static Exchange begin(HttpServerRequest request, HttpServerResponse response, String requestId, ServerLimits limits) {
        Scheduler[] loop = new Scheduler[1];
        request.withConnection(connection -> loop[0] = Schedulers.fromExecutor(connection.channel().eventLoop()));
        response.header(REQUEST_ID, requestId);
        return new Exchange(request, response, requestId, loop[0], Map.of(), Optional.empty(), limits);
    }

    /** The same request with its parsed query string and authenticated actor. */
    Exchange resolved(Map<String, List<String>> parsedQuery, Optional<String> caller) {
        return new Exchange(request, response, requestId, loop, parsedQuery, caller, limits);
    }

    /**
     * Subscribes a response on the connection's event loop, in a task of its own. Written there, the response's
     * last write, its completion and Reactor Netty's end of the request all happen in that one task, before the
     * loop reads the client's next keep-alive request. Written from a storage thread instead, the end of the
     * request lags behind the bytes on the wire: the next request is buffered as "pipelined", and when that one is
     * answered synchronously Reactor Netty (1.3.7, reactor-netty#4361) stops reading the connection, so the
     * request after it is never answered.
     */
    Mono<Void> send(Publisher<Void> sending) {
        return Mono.from(sending).subscribeOn(loop);
    }

    /**
     * A single-valued query parameter (empty when absent or blank). Given more than once it is a 400: which value
     * counts must not depend on the reader. Repeatable filters read {@link #query} instead.
     */
    Optional<String> param(String name) {
        List<String> values = query.get(name);
        if (values != null && values.size() > 1) {
            throw HttpProblem.badRequest("query parameter '" + name + "' is given " + values.size()
                    + " times; give it once");
        }
        return values == null || values.isEmpty() || values.get(0).isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    Optional<String> header(CharSequence name) {
        return Optional.ofNullable(request.requestHeaders().get(name));
    }

    /** A text body of {@code contentType} (the Prometheus exposition of {@code GET /metrics}). */
    Mono<Void> text(int status, String contentType, String body) {
        byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return send(response.status(status)
                .header(HttpHeaderNames.CONTENT_TYPE, contentType)
                .header(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(bytes.length))
                .sendByteArray(Mono.just(bytes)).then());
    }

    Mono<Void> json(int status, JsonNode body) {
        byte[] bytes = Json.bytes(body);
        return send(response.status(status)
                .header(HttpHeaderNames.CONTENT_TYPE, JSON)
                .header(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(bytes.length))
                .sendByteArray(Mono.just(bytes)).then());
    }

    /**
     * Sends the error body with this request's id; the log keeps the full failure under the same id (the body of a
     * server fault says only that there was one). After the status line has gone out the failure can only abort
     * the connection.
     */
    Mono<Void> error(Throwable failure, Function<String, String> entityKind) {
        ErrorBodies.Reply reply = failureReply(failure, entityKind);
        if (response.hasSentHeaders()) return Mono.error(failure);
        if (reply.status() == 401) response.header(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
        if (reply.status() == 503 && ("too_many_requests".equals(reply.body().path("code").asText(null))
                || reply.body().has("lease_lost"))) {
            response.header(HttpHeaderNames.RETRY_AFTER, "1");
        }
        return json(reply.status(), reply.body());
    }

    /** The error body of {@code failure} with this request's id, logged (for a stream that already sent its status). */
    ErrorBodies.Reply failureReply(Throwable failure, Function<String, String> entityKind) {
        ErrorBodies.Reply reply = ErrorBodies.served(failure, entityKind, requestId);
        log(reply, failure);
        return reply;
    }

    /** Server faults with their stack, refusals in one line; off the event loop (the log stream may block). */
    private void log(ErrorBodies.Reply reply, Throwable failure) {
        String line = request.method().name() + " " + request.uri();
        if (reply.status() >= 500) {
            Schedulers.boundedElastic().schedule(() -> LOG.warn("request {} {} failed ({}): {}", requestId, line,
                    reply.status(), failure.toString(), failure));
        } else if (LOG.isDebugEnabled()) {
            Schedulers.boundedElastic().schedule(() -> LOG.debug("request {} {} refused ({}): {}", requestId, line,
                    reply.status(), failure.toString()));
        }
    }

    /**
     * The JSON request body, read up to the body limit; an absent body is {@code {}} when {@code optional}.
     * Whatever the caller chains on it (compiling a {@code .gq} source of up to 1 MiB, binding params) runs on a
     * parallel worker, never on the event loop, where it would stall every other connection of that loop; only a
     * body of at most {@value #INLINE_BODY_BYTES} bytes is parsed on the loop (microseconds).
     */
    Mono<JsonNode> jsonBody(boolean optional) {
        return jsonBody(optional, node -> false);
    }

    /** A JSON body that may carry up to the load limit (the {@code /load} envelope); parsed as {@link #jsonBody}. */
    Mono<JsonNode> loadEnvelope() {
        if (readBody != null) return Mono.just(readBody).publishOn(Schedulers.parallel());
        return jsonObject(limits.loadBodyBytes(), false);
    }

    /** Bodies up to this size may be parsed on the event loop ({@link #jsonBody(boolean, Predicate)}). */
    static final int INLINE_BODY_BYTES = 16 * 1024;

    /**
     * As {@link #jsonBody(boolean)}, but a body of at most {@value #INLINE_BODY_BYTES} bytes is parsed on the event
     * loop (microseconds), and the caller's chain stays there when {@code cheapAfter} says the work it does before
     * its first storage call is cheap (a {@code .gq} text compiled before): a warm read then skips one thread hop.
     * Anything else continues on a parallel worker, as with {@link #jsonBody(boolean)}.
     */
    Mono<JsonNode> jsonBody(boolean optional, Predicate<JsonNode> cheapAfter) {
        if (readBody != null) { // read for the authorization decision: the stream is consumed
            return cheapAfter.test(readBody) ? Mono.just(readBody) : Mono.just(readBody).publishOn(Schedulers.parallel());
        }
        return Mono.defer(() -> {
            requireContentType(Set.of(JSON), "application/json");
            return aggregate(limits.bodyBytes()).flatMap(bytes -> {
                if (bytes.length > INLINE_BODY_BYTES) {
                    return Mono.just(bytes).publishOn(Schedulers.parallel()).map(b -> object(b, optional));
                }
                JsonNode node = object(bytes, optional);
                return cheapAfter.test(node) ? Mono.just(node) : Mono.just(node).publishOn(Schedulers.parallel());
            });
        });
    }

    private Mono<JsonNode> jsonObject(long limit, boolean optional) {
        return Mono.defer(() -> {
            requireContentType(Set.of(JSON), "application/json");
            return aggregate(limit).publishOn(Schedulers.parallel()).map(bytes -> object(bytes, optional));
        });
    }

    private static JsonNode object(byte[] bytes, boolean optional) {
        if (bytes.length == 0 && optional) return Json.object();
        JsonNode node = Json.parse(bytes, "request body");
        if (!node.isObject()) throw HttpProblem.badRequest("the request body must be a JSON object");
        return node;
    }

    /**
     * The raw NDJSON body as it arrives: every Netty buffer is copied to a heap {@link ByteBuffer} at once (Netty
     * releases it after this call), and the stream fails with {@code resource_limit} as soon as it passes the load
     * limit, so an oversize body is refused without being read to the end.
     */
    Flux<ByteBuffer> ndjsonBody() {
        // Checked now, before the engine starts a load that would only fail on its first byte.
        requireContentType(NDJSON_TYPES, NDJSON);
        long limit = limits.loadBodyBytes();
        refuseDeclaredLength(limit);
        AtomicLong seen = new AtomicLong();
        return request.receive().<ByteBuffer>handle((buf, sink) -> {
            long total = seen.addAndGet(buf.readableBytes());
            if (total > limit) {
                sink.error(tooLarge(limit, total));
                return;
            }
            sink.next(copy(buf));
        });
    }

    private static ByteBuffer copy(ByteBuf buf) {
        ByteBuffer out = ByteBuffer.allocate(buf.readableBytes());
        buf.getBytes(buf.readerIndex(), out);
        out.flip();
        return out;
    }

    private Mono<byte[]> aggregate(long limit) {
        refuseDeclaredLength(limit);
        AtomicLong seen = new AtomicLong();
        return request.receive().<byte[]>handle((buf, sink) -> {
                    long total = seen.addAndGet(buf.readableBytes());
                    if (total > limit) {
                        sink.error(tooLarge(limit, total));
                        return;
                    }
                    byte[] chunk = new byte[buf.readableBytes()];
                    buf.getBytes(buf.readerIndex(), chunk);
                    sink.next(chunk);
                })
                .collect(ByteArrayOutputStream::new, (out, chunk) -> out.write(chunk, 0, chunk.length))
                .map(ByteArrayOutputStream::toByteArray);
    }

    /** A declared Content-Length above the limit is refused before a byte of the body is read. */
    private void refuseDeclaredLength(long limit) {
        String declared = request.requestHeaders().get(HttpHeaderNames.CONTENT_LENGTH);
        if (declared == null) return;
        try {
            long length = Long.parseLong(declared.strip());
            if (length > limit) throw tooLarge(limit, length);
        } catch (NumberFormatException e) {
            throw HttpProblem.badRequest("Content-Length '" + declared + "' is not a number");
        }
    }

    private static ResourceLimitExceeded tooLarge(long limit, long actual) {
        return new ResourceLimitExceeded("request body bytes", limit, actual,
                "split the input into smaller requests (one request is one commit)");
    }

    /** 415 for a body of another type; a request without Content-Type is read as the route's own type. */
    private void requireContentType(Set<String> accepted, String preferred) {
        String type = request.requestHeaders().get(HttpHeaderNames.CONTENT_TYPE);
        if (type == null || type.isBlank()) return;
        String mime = type.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        boolean json = accepted.contains(JSON) && mime.startsWith("application/") && mime.endsWith("+json");
        if (!accepted.contains(mime) && !json) {
            throw HttpProblem.unsupportedMediaType("unsupported content type '" + type + "'; send " + preferred);
        }
    }
}
