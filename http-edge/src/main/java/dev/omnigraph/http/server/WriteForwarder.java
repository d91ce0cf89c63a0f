package dev.omnigraph.http.server;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.internal.HandleInternals;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.StoredQueries;
import dev.omnigraph.storage.lease.LeaseHolder;
import dev.omnigraph.storage.lease.WriterLease;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * Sends a write that arrives at a follower to the writer lease holder. The holder is whoever the lease object names,
 * at the URL it advertised ({@code serve --advertise-url}); the request body is streamed to it as it arrives, with
 * every end-to-end header (Authorization and Idempotency-Key included), and the holder's status, headers and body
 * are answered unchanged. A forwarded request carries {@value #FORWARDED}: a server that receives one and cannot
 * apply it answers 503 itself and never forwards again, so two servers with stale views of the lease cannot pass a
 * write back and forth. When no live holder advertised a URL, or it cannot be reached before the body was sent,
 * the follower answers as it always did (503 {@code lease_lost} with {@code Retry-After}).
 */
final class WriteForwarder {
    /** Marks a forwarded write; its value is the forwarding server's advertised URL (or "follower"). */
    static final String FORWARDED = "Omnigraph-Forwarded-By";
    /** The POST routes that only read: served by any server, never forwarded. */
    private static final Set<String> READ_POSTS = Set.of("query", "read", "export", "changes/baseline");
    /** Per-connection headers a proxy must not pass on (RFC 9110 section 7.6.1), plus Host and Expect. */
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection",
            "transfer-encoding", "te", "trailer", "upgrade", "proxy-authorization", "proxy-authenticate", "host",
            "expect");
    /** How long one read of the lease object answers "where is the holder" (a failure forgets it at once). */
    private static final Duration HOLDER_TTL = Duration.ofMillis(500);

    private record Known(Optional<String> url, Instant until) {
    }

    private final ScaleOut settings;
    private final HttpClient client;
    private final ConnectionProvider connections;
    private final Map<String, Known> holders = new ConcurrentHashMap<>();
    private final Counter forwarded;
    private final Counter redirected;
    private final Counter unreachable;

    WriteForwarder(ScaleOut settings, MeterRegistry meters) {
        this.settings = settings;
        this.connections = ConnectionProvider.builder("omnigraph-forward").maxConnections(256)
                .pendingAcquireMaxCount(-1).maxIdleTime(Duration.ofSeconds(30)).build();
        this.client = HttpClient.create(connections).responseTimeout(Duration.ofMinutes(10))
                .option(io.netty.channel.ChannelOption.CONNECT_TIMEOUT_MILLIS, 5_000);
        String name = "omnigraph.http.follower.writes";
        this.forwarded = Counter.builder(name).tag("outcome", "forwarded")
                .description("Writes a follower sent on to the lease holder, redirected, or refused as unreachable")
                .register(meters);
        this.redirected = Counter.builder(name).tag("outcome", "redirected").register(meters);
        this.unreachable = Counter.builder(name).tag("outcome", "unreachable").register(meters);
    }

    /** Whether {@code route} may read (and so takes a minimum commit): GET, the read POSTs, a stored query. */
    static boolean mayRead(Route route) {
        return route.method().equals("GET") || READ_POSTS.contains(route.path()) || route.path().equals("queries/{name}");
    }

    /**
     * Whether {@code route} writes, so only the lease holder can serve it. A stored query is a write when it is a
     * mutation (on a follower: one read of the stored query; an unknown name is served here, as a 404; the holder
     * serves either kind itself, so it does not look).
     */
    static Mono<Boolean> needsLease(Route route, Omnigraph graph, Map<String, String> vars) {
        if (route.path().equals("queries/{name}")) {
            if (graph.mode() == OpenMode.READ_WRITE) return Mono.just(false);
            return StoredQueries.get(HandleInternals.of(graph).objectStore(), vars.get("name"))
                    .map(stored -> stored.decl().isMutation())
                    .onErrorResume(missing -> Mono.just(false));
        }
        return Mono.just(!route.method().equals("GET") && !READ_POSTS.contains(route.path()));
    }

    /**
     * Serves a write: {@code local} when this server holds the lease, was configured to refuse, or received the
     * write forwarded already (it then answers 503, never forwards again); else forwarded or redirected to the
     * holder's advertised URL, or {@code local} (the 503) when no live holder advertised one.
     */
    Mono<Void> serve(Exchange ex, Omnigraph graph, Mono<Void> local) {
        if (graph.mode() == OpenMode.READ_WRITE || settings.followerWrites() == ScaleOut.FollowerWrites.REFUSE
                || ex.header(FORWARDED).isPresent()) {
            return local;
        }
        return holderUrl(graph)
                .filter(url -> !settings.advertiseUrl().map(url::equals).orElse(false))
                .flatMap(url -> settings.followerWrites() == ScaleOut.FollowerWrites.REDIRECT
                        ? redirect(ex, url) : forward(ex, graph, url, local))
                .switchIfEmpty(local);
    }

    /** The advertised URL of the live holder of {@code graph}'s lease, from the lease object (briefly cached). */
    private Mono<String> holderUrl(Omnigraph graph) {
        String key = graph.location().uri();
        Known known = holders.get(key);
        if (known != null && Instant.now().isBefore(known.until())) {
            return Mono.justOrEmpty(known.url());
        }
        return WriterLease.read(HandleInternals.of(graph).objectStore())
                .map(found -> found.filter(lease -> lease.heldAt(Instant.now())).flatMap(LeaseHolder::advertisedUrl))
                .doOnNext(url -> holders.put(key, new Known(url, Instant.now().plus(HOLDER_TTL))))
                .flatMap(Mono::justOrEmpty)
                // Storage unreachable for the lease read: answer as a follower does (503), not a fault.
                .onErrorResume(failure -> Mono.empty());
    }

    private Mono<Void> redirect(Exchange ex, String holder) {
        redirected.increment();
        byte[] body = Json.bytes(Json.object().put("location", holder + ex.request.uri()));
        return ex.send(ex.response.status(307)
                .header(HttpHeaderNames.LOCATION, holder + ex.request.uri())
                .header(HttpHeaderNames.CONTENT_TYPE, Exchange.JSON)
                .header(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(body.length))
                .sendByteArray(Mono.just(body)).then());
    }

    /**
     * Streams the request to the holder and its answer back. A failure before any of the body went out (the
     * holder is down) answers as a follower does; a failure after it answers 503 too, and the client's retry
     * with the same Idempotency-Key finds the write applied once or not at all.
     */
    private Mono<Void> forward(Exchange ex, Omnigraph graph, String holder, Mono<Void> local) {
        AtomicBoolean bodySent = new AtomicBoolean();
        HttpHeaders headers = new DefaultHttpHeaders();
        ex.request.requestHeaders().forEach(h -> {
            if (!HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) headers.add(h.getKey(), h.getValue());
        });
        headers.set(FORWARDED, settings.advertiseUrl().orElse("follower"));
        // A policy decision may have read the JSON body already: that body goes on, re-encoded, with its own length.
        Optional<byte[]> preRead = ex.preReadBody().map(Json::bytes);
        preRead.ifPresent(bytes -> {
            headers.remove(HttpHeaderNames.TRANSFER_ENCODING);
            headers.set(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(bytes.length));
        });
        return client.headers(h -> h.set(headers))
                .request(ex.request.method())
                .uri(holder + ex.request.uri())
                .send((request, out) -> {
                    bodySent.set(true);
                    return preRead.isPresent() ? out.sendByteArray(Mono.just(preRead.get()))
                            : out.send(ex.request.receive().retain());
                })
                .response((answer, body) -> {
                    forwarded.increment();
                    ex.response.status(answer.status());
                    HttpHeaders back = ex.response.responseHeaders();
                    answer.responseHeaders().names().forEach(back::remove);
                    answer.responseHeaders().forEach(h -> {
                        if (!HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) back.add(h.getKey(), h.getValue());
                    });
                    return ex.send(ex.response.send(body.retain()));
                })
                .then()
                .onErrorResume(failure -> {
                    holders.remove(graph.location().uri());
                    unreachable.increment();
                    if (ex.response.hasSentHeaders()) return Mono.error(failure);
                    if (!bodySent.get()) return local;
                    return ex.error(new HttpProblem(503, null, "the lease holder did not answer the forwarded write; "
                            + "retry it (with the same Idempotency-Key, it is applied at most once)")
                            .withDetail("lease_lost", Json.object().put("forwarded", true)), n -> null);
                });
    }

    void close() {
        connections.dispose();
    }
}
