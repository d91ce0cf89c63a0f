package dev.omnigraph.http.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.internal.HandleInternals;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.lease.WriterLease;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * How fresh this server's view of each served graph is, and reads that must see a given commit.
 *
 * <p>Every {@code maxStaleness} the server checks each open graph's main head: one open of the latest
 * {@code __manifest} version (the version check every read starts with), a manifest scan only when the version
 * moved. That keeps a follower's handle, its schema and its view of the head at most one interval behind the
 * holder with no traffic at all, and is what {@code /healthz} and the gauges report. A follower also reads the
 * lease object: once it has no live holder the follower opens again and takes it over, even when idle.
 *
 * <p>A read may name a minimum commit ({@value #MIN_COMMIT} header or {@value #MIN_COMMIT_PARAM} parameter: the
 * {@code graph_commit_id} a write answered). It is served once that commit is visible here, checked at once and
 * again every interval, without blocking a thread; after {@code minCommitTimeout} it is answered 504 with a
 * {@code min_commit} detail, so a client that writes through one server and reads through another sees its writes.
 */
final class Freshness {
    static final String MIN_COMMIT = "X-Omnigraph-Min-Commit";
    static final String MIN_COMMIT_PARAM = "min_commit";
    private static final Logger LOG = LoggerFactory.getLogger(Freshness.class);
    /** Commit ids are ULIDs; anything printable and short is looked up (an unknown one simply never appears). */
    private static final Pattern COMMIT_ID = Pattern.compile("[A-Za-z0-9_-]{1,128}");

    /** What the last check of one graph saw, and when (nanoTime). */
    record View(OpenMode mode, long mainManifestVersion, Optional<String> mainHead, long checkedAtNanos) {
        double ageSeconds() {
            return (System.nanoTime() - checkedAtNanos) / 1e9;
        }
    }

    private final ScaleOut settings;
    private final GraphRegistry registry;
    private final MeterRegistry meters;
    private final Map<String, View> views = new ConcurrentHashMap<>();
    private volatile Disposable checks;

    Freshness(ScaleOut settings, GraphRegistry registry, MeterRegistry meters) {
        this.settings = settings;
        this.registry = registry;
        this.meters = meters;
        Gauge.builder("omnigraph.follower.staleness.bound", settings, s -> s.maxStaleness().toNanos() / 1e9)
                .description("The configured bound: every open graph's head is checked at least this often")
                .baseUnit("seconds").register(meters);
    }

    /** Starts the periodic checks (each starts one interval after the previous one finished). */
    Freshness start() {
        // One-shot delays, not Flux.interval: disposing a periodic task can park the disposing thread.
        checks = Mono.delay(settings.maxStaleness()).then(Mono.defer(this::checkAll)).repeat().subscribe();
        return this;
    }

    void stop() {
        Disposable running = checks;
        if (running != null) running.dispose();
    }

    private Mono<Void> checkAll() {
        return Flux.fromIterable(registry.openIds())
                .flatMap(id -> registry.graph(id).flatMap(graph -> check(id, graph))
                        .onErrorResume(failure -> {
                            LOG.debug("freshness check of graph {} failed: {}", id, failure.toString());
                            return Mono.empty();
                        }), 4)
                .then();
    }

    /**
     * One check of {@code graph}'s main head, recorded as its view. The lease holder is the only writer, so its
     * view is current by construction and costs no storage call.
     */
    private Mono<View> check(String id, Omnigraph graph) {
        Mono<View> seen = graph.mode() == OpenMode.READ_WRITE
                ? Mono.just(new View(OpenMode.READ_WRITE, -1, Optional.empty(), System.nanoTime()))
                : graph.snapshot(ReadTarget.main()).map(snapshot -> new View(graph.mode(), snapshot.manifestVersion(),
                        snapshot.graphCommitId(), System.nanoTime())).flatMap(view -> takeOverIfFree(id, graph)
                        .thenReturn(view));
        return seen
                .doOnNext(view -> {
                    if (views.put(id, view) == null) {
                        Gauge.builder("omnigraph.follower.view.age", views, all -> Optional.ofNullable(all.get(id))
                                        .map(View::ageSeconds).orElse(Double.NaN))
                                .description("Time since this server last checked the graph's main head")
                                .tag("graph", id).baseUnit("seconds").register(meters);
                    }
                });
    }

    /**
     * A follower whose lease has no live holder (expired after the holder died, or given back) is dropped, so the
     * next check or request opens the graph again and takes the lease: a takeover within one interval of the
     * expiry. One read of the lease object; a graph without one (OS locks) is left alone.
     */
    private Mono<Void> takeOverIfFree(String id, Omnigraph follower) {
        return WriterLease.read(HandleInternals.of(follower).objectStore())
                .doOnNext(lease -> lease.filter(held -> !held.heldAt(java.time.Instant.now()))
                        .ifPresent(free -> registry.reopen(id, follower)))
                .then();
    }

    /** The minimum commit a read asked for (header or parameter; the two must agree), if any. */
    static Optional<String> minCommit(Exchange ex) {
        Optional<String> header = ex.header(MIN_COMMIT).map(String::strip).filter(v -> !v.isEmpty());
        Optional<String> param = ex.param(MIN_COMMIT_PARAM);
        if (header.isPresent() && param.isPresent() && !header.equals(param)) {
            throw HttpProblem.badRequest(MIN_COMMIT + " and ?" + MIN_COMMIT_PARAM + " name different commits");
        }
        Optional<String> wanted = header.or(() -> param);
        wanted.ifPresent(id -> {
            if (!COMMIT_ID.matcher(id).matches()) {
                throw HttpProblem.badRequest(MIN_COMMIT + " must be a graph_commit_id (letters, digits, '-' or '_')");
            }
        });
        return wanted;
    }

    /**
     * Completes once commit {@code commitId} is visible in {@code graph} (at once when it is the head last seen),
     * re-checking every interval; errors with a 504 {@code min_commit} problem after the timeout.
     */
    Mono<Void> awaitCommit(String graphId, Omnigraph graph, String commitId) {
        View seen = views.get(graphId);
        if (seen != null && seen.mainHead().filter(commitId::equals).isPresent()) return Mono.empty();
        Duration timeout = settings.minCommitTimeout();
        Mono<Boolean> visible = Mono.defer(() -> graph.commit(commitId)).map(found -> true)
                .onErrorResume(NotFound.class, missing -> Mono.just(false));
        return untilVisible(visible, settings.maxStaleness())
                .timeout(timeout, Mono.error(() -> new HttpProblem(504, null, "this server has not seen commit "
                        + commitId + " within " + timeout.toMillis() + " ms; retry, or read through the server "
                        + "that wrote it").withDetail("min_commit", Json.object().put("graph_commit_id", commitId)
                        .put("timeout_ms", timeout.toMillis()))))
                .then();
    }

    /** Checks at once, then again one interval after each miss, until {@code visible} says yes. */
    private static Mono<Void> untilVisible(Mono<Boolean> visible, Duration every) {
        return visible.flatMap(found -> found ? Mono.<Void>empty()
                : Mono.delay(every).then(Mono.defer(() -> untilVisible(visible, every))));
    }

    /** The freshness part of {@code /healthz}: the bound, the follower mode, and each open graph's last view. */
    ObjectNode describe(ObjectNode health) {
        ObjectNode out = health.putObject("freshness");
        out.put("max_staleness_ms", settings.maxStaleness().toMillis());
        out.put("min_commit_timeout_ms", settings.minCommitTimeout().toMillis());
        out.put("follower_writes", settings.followerWrites().name().toLowerCase(java.util.Locale.ROOT));
        out.put("advertise_url", settings.advertiseUrl().orElse(null));
        ArrayNode graphs = out.putArray("graphs");
        new java.util.TreeMap<>(views).forEach((id, view) -> graphs.addObject().put("graph_id", id)
                .put("role", view.mode() == OpenMode.READ_WRITE ? "holder" : "follower")
                .put("main_manifest_version", view.mainManifestVersion() < 0 ? null : view.mainManifestVersion())
                .put("main_head_commit_id", view.mainHead().orElse(null))
                .put("checked_ms_ago", (long) (view.ageSeconds() * 1000)));
        return health;
    }
}
