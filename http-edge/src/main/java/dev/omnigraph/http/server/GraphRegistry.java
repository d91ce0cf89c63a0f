package dev.omnigraph.http.server;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.read.QueryLimits;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.storage.manifest.ManifestSchema;
import dev.omnigraph.storage.root.GraphRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The graphs one server serves. A root that itself holds {@code __manifest} is served alone (its id is the
 * directory's name); otherwise every subdirectory holding {@code __manifest} is a graph, found on demand, so graphs
 * created after start-up are served too. An {@code s3://} root is always one graph (its id is the prefix's last
 * segment): directories of graphs are local only. Handles are opened read-write once and shared by every request.
 */
final class GraphRegistry {
    /** Ids are single path segments: no separators, no dot-names, at most 64 characters. */
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    record Listed(String graphId, GraphRoot root) {
    }

    private final StorageServices services;
    private final GraphRoot root;
    private final Optional<String> singleId;
    private final Map<String, Mono<Omnigraph>> open = new ConcurrentHashMap<>();
    /** The handle each graph's last open produced (to close a follower handle once it is replaced). */
    private final Map<String, Omnigraph> latest = new ConcurrentHashMap<>();
    private final QueryLimits queryLimits;
    /** Where every handle opened here records its meters; null: none. Set once, before the first request. */
    private volatile io.micrometer.core.instrument.MeterRegistry meters;
    /** Where every handle opened here makes its observations; null or no-op: none. Set once, before the first request. */
    private volatile io.micrometer.observation.ObservationRegistry observations;
    /** How handles hold the writer lease (with this server's advertised URL); set once, before the first request. */
    private volatile dev.omnigraph.storage.lease.LeaseSettings lease = dev.omnigraph.storage.lease.LeaseSettings.fromEnvironment();
    /** How long a follower handle is kept before the server tries to take the writer tenure again. */
    static final Duration FOLLOW_FOR = Duration.ofSeconds(5);

    private GraphRegistry(StorageServices services, GraphRoot root, Optional<String> singleId, QueryLimits queryLimits) {
        this.services = services;
        this.root = root;
        this.singleId = singleId;
        this.queryLimits = queryLimits;
    }

    /**
     * Decides single or directory mode (blocking file checks: call at start-up). Every handle opened runs its read
     * queries within {@code queryLimits}.
     */
    static GraphRegistry create(StorageServices services, GraphRoot served, QueryLimits queryLimits) {
        if (served instanceof GraphRoot.S3 s3) {
            // The warm-up open at start-up says whether a graph is there.
            String name = s3.prefix().substring(s3.prefix().lastIndexOf('/') + 1);
            return new GraphRegistry(services, s3, Optional.of(ID.matcher(name).matches() ? name : "default"), queryLimits);
        }
        Path absolute = ((GraphRoot.Local) served).directory().toAbsolutePath().normalize();
        if (!Files.isDirectory(absolute)) {
            throw new dev.omnigraph.storage.error.NotFound("directory", absolute.toString(),
                    "cannot serve " + absolute + ": no such directory");
        }
        if (isGraph(absolute)) {
            String name = absolute.getFileName() == null ? "" : absolute.getFileName().toString();
            return new GraphRegistry(services, new GraphRoot.Local(absolute),
                    Optional.of(ID.matcher(name).matches() ? name : "default"), queryLimits);
        }
        return new GraphRegistry(services, new GraphRoot.Local(absolute), Optional.empty(), queryLimits);
    }

    /** Opens every later handle with {@code registry} as its meter registry. */
    GraphRegistry meters(io.micrometer.core.instrument.MeterRegistry registry) {
        this.meters = registry;
        return this;
    }

    /** Opens every later handle with {@code registry} as its observation registry. */
    GraphRegistry observations(io.micrometer.observation.ObservationRegistry registry) {
        this.observations = registry;
        return this;
    }

    /** Opens every later handle with {@code settings} as its writer lease settings. */
    GraphRegistry lease(dev.omnigraph.storage.lease.LeaseSettings settings) {
        this.lease = settings;
        return this;
    }

    /** The ids of the graphs opened so far (the freshness checks look only at those). */
    java.util.Set<String> openIds() {
        return java.util.Set.copyOf(open.keySet());
    }

    private static boolean isGraph(Path dir) {
        return Files.isDirectory(dir.resolve(ManifestSchema.DIRECTORY));
    }

    /** The id of the single graph, when started on one graph root. */
    Optional<String> singleId() {
        return singleId;
    }

    GraphRoot root() {
        return root;
    }

    /** The directory of graphs (directory mode is local only). */
    private Path directory() {
        return ((GraphRoot.Local) root).directory();
    }

    /** Every graph served, sorted by id (the directory scan runs on the storage scheduler). */
    Mono<List<Listed>> list() {
        if (singleId.isPresent()) return Mono.just(List.of(new Listed(singleId.get(), root)));
        return services.scheduler().call(() -> {
            List<Listed> out = new ArrayList<>();
            try (Stream<Path> children = Files.list(directory())) {
                children.sorted().forEach(child -> {
                    String name = child.getFileName().toString();
                    if (ID.matcher(name).matches() && isGraph(child)) out.add(new Listed(name, new GraphRoot.Local(child)));
                });
            }
            return out;
        });
    }

    /** The handle of graph {@code id}: 404 when no such graph is served. Failed opens are not cached. */
    Mono<Omnigraph> graph(String id) {
        if (singleId.isPresent()) {
            return singleId.get().equals(id) ? handle(id, root) : Mono.error(unknown(id));
        }
        if (!ID.matcher(id).matches()) return Mono.error(unknown(id));
        Mono<Omnigraph> opened = open.get(id);
        Path graphRoot = directory().resolve(id);
        if (opened != null) return handle(id, new GraphRoot.Local(graphRoot));
        return services.scheduler().call(() -> isGraph(graphRoot))
                .flatMap(found -> found ? handle(id, new GraphRoot.Local(graphRoot)) : Mono.error(unknown(id)));
    }

    /**
     * The shared handle: the writer when this server holds the graph's writer tenure, else a read-only follower
     * (writes answer 503 {@code lease_lost} naming the holder) kept for {@link #FOLLOW_FOR}, after which the next
     * request tries to become the writer again. A writer whose lease was lost is closed and opened again.
     */
    private Mono<Omnigraph> handle(String id, GraphRoot graphRoot) {
        Mono<Omnigraph> cached = open.computeIfAbsent(id, key -> withMeters(Omnigraph.at(graphRoot).services(services)
                        .lease(lease).queryLimits(queryLimits)).openServing()
                .doOnNext(opened -> retire(key, opened))
                .doOnError(e -> open.remove(key))
                .cache(ok -> ok.mode() == OpenMode.READ_WRITE ? Duration.ofMillis(Long.MAX_VALUE) : FOLLOW_FOR,
                        e -> Duration.ZERO, () -> Duration.ZERO));
        return cached.flatMap(graph -> {
            if (!graph.writerTenureLost()) return Mono.just(graph);
            if (open.remove(id, cached)) graph.close();
            return handle(id, graphRoot);
        });
    }

    /**
     * Drops {@code follower}, the current follower handle of graph {@code id}, so the next request opens the graph
     * again: called when the lease it follows is free (its holder died and it expired, or was given back), so a
     * follower takes over within a check instead of waiting out {@link #FOLLOW_FOR}.
     */
    void reopen(String id, Omnigraph follower) {
        Mono<Omnigraph> cached = open.get(id);
        if (cached != null && follower.mode() == OpenMode.READ_ONLY && latest.get(id) == follower) {
            open.remove(id, cached);
        }
    }

    /**
     * A follower handle that a newer open replaced is closed (it holds no tenure: closing only stops its meters),
     * so the periodic re-opens of a follower do not pile handles up.
     */
    private void retire(String id, Omnigraph opened) {
        Omnigraph previous = latest.put(id, opened);
        if (previous != null && previous != opened && previous.mode() == OpenMode.READ_ONLY) {
            previous.closeAsync().subscribe(done -> { }, failure -> { });
        }
    }

    private dev.omnigraph.engine.OmnigraphBuilder withMeters(dev.omnigraph.engine.OmnigraphBuilder builder) {
        io.micrometer.core.instrument.MeterRegistry registry = meters;
        io.micrometer.observation.ObservationRegistry observed = observations;
        builder = registry == null ? builder : builder.meterRegistry(registry);
        return observed == null || observed.isNoop() ? builder : builder.observationRegistry(observed);
    }

    private static HttpProblem unknown(String id) {
        return HttpProblem.notFound("no graph '" + id + "' is served here");
    }

    /**
     * Closes every opened handle and completes once each gave its writer tenure back, so a lease is free for the
     * next server the moment this one has shut down (graphs share the storage services, which the caller owns).
     */
    Mono<Void> closeAll() {
        return Flux.fromIterable(List.copyOf(open.values()))
                .flatMap(m -> m.onErrorResume(e -> Mono.empty()))
                .flatMap(graph -> graph.closeAsync().onErrorResume(e -> Mono.empty()))
                .then(Mono.fromRunnable(open::clear));
    }
}
