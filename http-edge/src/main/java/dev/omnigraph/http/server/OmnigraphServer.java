package dev.omnigraph.http.server;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.read.QueryLimits;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.http.wire.Json;
import io.micrometer.observation.ObservationRegistry;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import dev.omnigraph.storage.root.GraphRoot;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * The HTTP edge: a Reactor Netty server over a directory of graphs (or one graph root). Every engine call is
 * composed into the response, so no event-loop thread ever waits. {@link #shutdown()} stops accepting, lets the
 * requests in flight finish (bounded by the grace period), then closes the connections and the graph handles.
 */
public final class OmnigraphServer {
    private static final Logger LOG = LoggerFactory.getLogger(OmnigraphServer.class);
    public static final String LOOPBACK = "127.0.0.1";
    private static final java.util.regex.Pattern IPV4_LOOPBACK =
            java.util.regex.Pattern.compile("127(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");

    /**
     * What to serve and how: a graph root or a directory of roots, the bind address, tokens, request limits, and
     * the budget every read query on every served graph runs within.
     */
    public record Config(GraphRoot root, String host, int port, BearerTokens tokens, ServerLimits limits,
                         QueryLimits queryLimits, Optional<InetSocketAddress> openMetrics, ScaleOut scaleOut) {
        /** Serving the root alone: no advertised URL, followers refuse writes as before. */
        public Config(GraphRoot root, String host, int port, BearerTokens tokens, ServerLimits limits,
                      QueryLimits queryLimits, Optional<InetSocketAddress> openMetrics) {
            this(root, host, port, tokens, limits, queryLimits, openMetrics, ScaleOut.DEFAULT);
        }

        /** How this server shares its root with other servers (issue 33: forwarding, freshness). */
        public Config withScaleOut(ScaleOut newScaleOut) {
            return new Config(root, host, port, tokens, limits, queryLimits, openMetrics, newScaleOut);
        }

        /** Without an open metrics address. */
        public Config(GraphRoot root, String host, int port, BearerTokens tokens, ServerLimits limits,
                      QueryLimits queryLimits) {
            this(root, host, port, tokens, limits, queryLimits, Optional.empty());
        }

        /** With the default query budget. */
        public Config(GraphRoot root, String host, int port, BearerTokens tokens, ServerLimits limits) {
            this(root, host, port, tokens, limits, QueryLimits.DEFAULT);
        }

        /** A local graph root or directory of roots, with the default query budget. */
        public Config(Path root, String host, int port, BearerTokens tokens, ServerLimits limits) {
            this(new GraphRoot.Local(root), host, port, tokens, limits);
        }

        /** Loopback, an ephemeral port, no tokens, default limits. */
        public static Config of(Path root) {
            return of(new GraphRoot.Local(root));
        }

        /** As {@link #of(Path)} for any root: a local directory or an {@code s3://} graph root. */
        public static Config of(GraphRoot root) {
            return new Config(root, LOOPBACK, 0, BearerTokens.none(), ServerLimits.DEFAULT);
        }

        public Config withQueryLimits(QueryLimits newQueryLimits) {
            return new Config(root, host, port, tokens, limits, newQueryLimits, openMetrics, scaleOut);
        }

        public Config withPort(int newPort) {
            return new Config(root, host, newPort, tokens, limits, queryLimits, openMetrics, scaleOut);
        }

        public Config withHost(String newHost) {
            return new Config(root, newHost, port, tokens, limits, queryLimits, openMetrics, scaleOut);
        }

        public Config withTokens(BearerTokens newTokens) {
            return new Config(root, host, port, newTokens, limits, queryLimits, openMetrics, scaleOut);
        }

        /**
         * Also serves {@code GET /metrics}, and nothing else, without auth on {@code address} (a second listener,
         * for a scraper on a network the graph API is not exposed to).
         */
        public Config withOpenMetrics(InetSocketAddress address) {
            return new Config(root, host, port, tokens, limits, queryLimits, Optional.of(address), scaleOut);
        }

        public Config withLimits(ServerLimits newLimits) {
            return new Config(root, host, port, tokens, newLimits, queryLimits, openMetrics, scaleOut);
        }
    }

    private final GraphRegistry registry;
    private final Config config;
    private final Routes routes;
    private final ChannelGroup connections;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final RequestIds requestIds = new RequestIds();
    private final ConnectionGuard guard;
    private final AtomicBoolean shuttingDown = new AtomicBoolean();
    private final Sinks.Empty<Void> terminated = Sinks.empty();
    private volatile boolean draining;
    private volatile DisposableServer server;
    private final ServerMetrics metrics;
    /** The open {@code /metrics} listener, when configured. */
    private volatile DisposableServer metricsServer;

    private final RequestTelemetry requestTelemetry;

    private OmnigraphServer(GraphRegistry registry, Config config, Routes routes, ChannelGroup connections,
                            ServerMetrics metrics, RequestTelemetry requestTelemetry) {
        this.metrics = metrics;
        this.requestTelemetry = requestTelemetry;
        this.registry = registry;
        this.config = config;
        this.routes = routes;
        this.connections = connections;
        this.guard = new ConnectionGuard(config.limits(), requestIds);
    }

    /**
     * Starts a server. The set-up (directory checks, token and OpenAPI loading) runs on the calling thread, which
     * may block; binding and, on a single graph, opening it are the returned {@code Mono}. Without tokens the
     * server binds loopback only, whatever host was asked for, and logs that it did.
     */
    public static Mono<OmnigraphServer> start(StorageServices services, Config requested) {
        return start(services, requested, ServerPolicy.none(), ObservationRegistry.NOOP);
    }

    /** As {@link #start(StorageServices, Config)}, authorizing every request with {@code policy} (docs/authorization.md). */
    public static Mono<OmnigraphServer> start(StorageServices services, Config requested, ServerPolicy policy) {
        return start(services, requested, policy, ObservationRegistry.NOOP);
    }

    /**
     * As {@link #start(StorageServices, Config, ServerPolicy)}, with every request an observation on
     * {@code observations} (and the engine's write, query and maintenance observations its children), for a caller
     * that bridges them to a tracer; the request log line then carries the tracer's trace id.
     */
    public static Mono<OmnigraphServer> start(StorageServices services, Config requested, ServerPolicy policy,
                                              ObservationRegistry observations) {
        ServerMetrics metrics = new ServerMetrics();
        GraphRegistry registry = GraphRegistry.create(ServerMetrics.counted(services), requested.root(),
                requested.queryLimits()).meters(metrics.registry()).observations(observations)
                .lease(requested.scaleOut().leaseSettings());
        Config config = requested;
        if (!requested.tokens().enabled()) {
            if (!isLoopback(requested.host())) {
                LOG.warn("no auth tokens configured: binding loopback {} only instead of {} (configure a tokens file "
                        + "or {} to serve other hosts)", LOOPBACK, requested.host(), BearerTokens.ENV);
                config = requested.withHost(LOOPBACK);
            } else {
                LOG.info("no auth tokens configured: serving loopback only");
            }
        }
        policy.requireTokens(config.tokens());
        policy.bindMetrics(metrics.registry());
        FollowerRouting followers = new FollowerRouting(config.scaleOut(), registry, metrics.registry());
        Routes routes = new Routes(registry, config.tokens(), metrics, policy, followers);
        ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
        OmnigraphServer omnigraph = new OmnigraphServer(registry, config, routes, connections, metrics,
                new RequestTelemetry(observations, routes::template));
        Config bound = config;
        Mono<?> warm = registry.singleId().map(registry::graph).map(m -> (Mono<?>) m).orElse(Mono.empty());
        ServerLimits limits = bound.limits();
        return warm.then(HttpServer.create()
                        .host(bound.host())
                        .port(bound.port())
                        .channelGroup(connections)
                        .idleTimeout(limits.idleTimeout())
                        .readTimeout(limits.readTimeout())
                        .httpRequestDecoder(spec -> spec.maxInitialLineLength(limits.maxUriBytes())
                                .maxHeaderSize(limits.maxHeaderBytes()))
                        .doOnChannelInit((observer, channel, remote) -> omnigraph.guard.install(channel))
                        // Reactor Netty's connection and request meters, tagged by route template, never raw path.
                        .metrics(true, routes::template)
                        .handle((req, res) -> omnigraph.handle(req, res))
                        .bind())
                .map(disposable -> {
                    omnigraph.server = disposable;
                    return omnigraph;
                })
                .flatMap(started -> bound.openMetrics().map(address -> HttpServer.create()
                                .host(address.getHostString()).port(address.getPort())
                                .route(open -> open.get("/metrics", (req, res) -> res
                                        .header("Content-Type", ServerMetrics.CONTENT_TYPE)
                                        .sendString(Mono.fromSupplier(metrics::scrape)))
                                        // Liveness too, so an orchestrator's probe never competes with API traffic.
                                        .get("/healthz", (req, res) -> res.header("Content-Type", Exchange.JSON)
                                                .sendString(Mono.fromSupplier(() -> Json.text(
                                                        dev.omnigraph.http.wire.Shapes.health())))))
                                .bind()
                                .map(disposable -> {
                                    started.metricsServer = disposable;
                                    return started;
                                }))
                        .orElse(Mono.just(started)))
                .doOnError(failure -> {
                    routes.close();
                    metrics.close();
                });
    }

    /** Loopback names and literals only: {@code localhost}, IPv6 {@code ::1}, an IPv4 literal in 127.0.0.0/8. */
    static boolean isLoopback(String host) {
        String h = host.strip().toLowerCase(java.util.Locale.ROOT);
        return h.equals("localhost") || h.equals("::1") || h.equals("[::1]") || h.equals("0:0:0:0:0:0:0:1")
                || h.equals("[0:0:0:0:0:0:0:1]") || IPV4_LOOPBACK.matcher(h).matches();
    }

    /**
     * Counts the request, then serves it. Nothing here may throw: the count must come down whatever happens, or a
     * graceful shutdown would wait out its whole grace period for a request that is long gone.
     */
    private Publisher<Void> handle(HttpServerRequest request, HttpServerResponse response) {
        inFlight.incrementAndGet();
        String requestId = requestIds.next();
        return requestTelemetry.around(request, response, requestId, Mono.defer(() -> {
                    Exchange ex = Exchange.begin(request, response, requestId, config.limits());
                    if (!draining) return routes.dispatch(ex);
                    response.keepAlive(false);
                    return ex.error(new HttpProblem(503, null, "the server is shutting down; retry shortly"), n -> null);
                }))
                .doFinally(signal -> inFlight.decrementAndGet());
    }

    /** The route tables this server dispatches on (what its OpenAPI document describes). */
    Routes routes() {
        return routes;
    }

    public int port() {
        return ((InetSocketAddress) server.address()).getPort();
    }

    public String host() {
        return config.host();
    }

    /** The base URL, e.g. {@code http://127.0.0.1:8080}. */
    public String baseUrl() {
        String host = config.host().contains(":") && !config.host().startsWith("[") ? "[" + config.host() + "]" : config.host();
        return "http://" + host + ":" + port();
    }

    /** The root served: the absolute, normalised directory, or the {@code s3://} prefix. */
    public GraphRoot root() {
        return registry.root();
    }

    /** The id of the single graph served at the root, when started on one graph root. */
    public Optional<String> singleGraphId() {
        return registry.singleId();
    }

    public boolean authEnabled() {
        return config.tokens().enabled();
    }

    /** The shared handle of a served graph (for embedders and tests). */
    public Mono<Omnigraph> graph(String graphId) {
        return registry.graph(graphId);
    }

    /** Connections open right now (refused ones included until they close). */
    public int openConnections() {
        return guard.open();
    }

    /** Requests being served right now. */
    public int inFlight() {
        return inFlight.get();
    }

    /** The port of the open {@code /metrics} listener, when configured. */
    public Optional<Integer> openMetricsPort() {
        return Optional.ofNullable(metricsServer).map(s -> ((InetSocketAddress) s.address()).getPort());
    }

    /** Completes when the server has shut down. */
    public Mono<Void> onTerminated() {
        return terminated.asMono();
    }

    /** How long {@link #shutdown()} can take: the grace period, then closing connections and graph handles. */
    public java.time.Duration shutdownBound() {
        return config.limits().shutdownGrace().plusSeconds(10);
    }

    /**
     * Graceful shutdown: refuse new requests (503 with {@code Connection: close}), stop accepting connections,
     * wait for in-flight requests up to the grace period, then close every connection and graph handle.
     */
    public Mono<Void> shutdown() {
        return Mono.defer(() -> {
            if (!shuttingDown.compareAndSet(false, true)) return terminated.asMono();
            draining = true;
            DisposableServer bound = server;
            bound.dispose();
            if (metricsServer != null) metricsServer.dispose();
            Duration grace = config.limits().shutdownGrace();
            Mono<Void> idle = Flux.interval(Duration.ZERO, Duration.ofMillis(10))
                    .filter(tick -> inFlight.get() == 0)
                    .next()
                    .timeout(grace, Mono.fromRunnable(() -> LOG.warn("shutdown: {} request(s) still running after {}",
                            inFlight.get(), grace)))
                    .then();
            return bound.onDispose()
                    .then(idle)
                    .then(Mono.<Void>create(sink -> connections.close().addListener(f -> sink.success())))
                    .then(registry.closeAll())
                    .doFinally(signal -> {
                        routes.close();
                        metrics.close();
                        terminated.tryEmitEmpty();
                    });
        });
    }

    /** A JSON rendering of the served configuration, for start-up banners. */
    public String describe() {
        return Json.text(Json.object().put("url", baseUrl()).put("root", root().toString())
                .put("single_graph", registry.singleId().orElse(null)).put("auth", authEnabled()));
    }
}
