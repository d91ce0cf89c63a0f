package dev.omnigraph.engine;

import dev.omnigraph.engine.read.QueryLimits;
import dev.omnigraph.engine.write.IdempotencySettings;
import dev.omnigraph.engine.write.WriteLimits;
import dev.omnigraph.engine.observe.EngineTelemetry;
import dev.omnigraph.storage.CountingObjectStore;
import dev.omnigraph.storage.CountingTableStorage;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.StorageCallCounter;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.lease.LeaseSettings;
import dev.omnigraph.storage.root.GraphRoot;
import java.net.URI;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import reactor.core.publisher.Mono;

/**
 * The one way to a {@link Omnigraph} handle: an immutable description of where the graph lives and how the handle
 * runs, then {@link #init(String)}, {@link #open(OpenMode)} or {@link #openServing()}. Every setter returns a new
 * builder, so one configured builder can open many handles (Reactor Netty's {@code HttpServer.create().port(..)}
 * style). Start from {@link Omnigraph#at(Path)}, {@link Omnigraph#at(URI)} or {@link Omnigraph#at(GraphRoot)}.
 *
 * <p>Unset values take their defaults when the handle opens: the process-wide {@link StorageServices#shared()},
 * the lease from the environment ({@link LeaseSettings#fromEnvironment()}; a read-only open takes none),
 * {@link WriteLimits#DEFAULT}, {@link QueryLimits#DEFAULT} and {@link IdempotencySettings#fromEnvironment()}.
 *
 * <p>Open-time options of later features (a meter registry, an authorizer) are further setters here: each adds a
 * field to {@link HandleSettings}, which the handle receives when it opens, so no new open overload is needed.
 */
public final class OmnigraphBuilder {
    private final GraphRoot root;
    private final StorageServices services;
    private final LeaseSettings lease;
    private final HandleSettings settings;

    private OmnigraphBuilder(GraphRoot root, StorageServices services, LeaseSettings lease, HandleSettings settings) {
        this.root = Objects.requireNonNull(root, "root");
        this.services = services;
        this.lease = lease;
        this.settings = settings;
    }

    static OmnigraphBuilder at(GraphRoot root) {
        return new OmnigraphBuilder(root, null, null, HandleSettings.DEFAULTS);
    }

    /** The root a URI names; a {@code file:/dir} URI (java.io.File's form) as well as {@code file:///dir}. */
    static GraphRoot rootOf(URI uri) {
        if (!"file".equalsIgnoreCase(uri.getScheme()) || uri.getAuthority() != null) {
            return GraphRoot.parse(uri.toString()); // s3://, file://host/… (refused there), plain paths
        }
        try {
            return new GraphRoot.Local(Path.of(uri));
        } catch (IllegalArgumentException e) {
            throw new BadRequest("graph root: '" + uri + "' is not a valid file: URI (" + e.getMessage() + ")");
        }
    }

    /** Where the graph lives: its local directory or its S3 prefix. */
    public GraphRoot root() {
        return root;
    }

    /** The storage services the handle runs on: {@link StorageServices#shared()} unless set. */
    public StorageServices services() {
        return services == null ? StorageServices.shared() : services;
    }

    /**
     * What a handle opens on: {@link #services()}, and with a meter registry its table and object-store calls
     * counted by class (in the registry's one {@link StorageCallCounter}), unless they already are.
     */
    private StorageServices openedServices() {
        StorageServices base = services();
        if (settings.meters() == null || base.tables() instanceof CountingTableStorage) {
            return base;
        }
        StorageCallCounter counter = dev.omnigraph.engine.observe.HandleMeters.counterFor(settings.meters());
        return new StorageServices(base.scheduler(), new CountingTableStorage(base.tables(), counter),
                store -> new CountingObjectStore(base.objectStores().apply(store), counter));
    }

    /** The registry the handle's meters go to; empty (the default) records nothing. */
    public Optional<MeterRegistry> meterRegistry() {
        return Optional.ofNullable(settings.meters());
    }

    /** The registry the handle's observations go to; empty (the default) observes nothing. */
    public Optional<ObservationRegistry> observationRegistry() {
        return Optional.ofNullable(settings.observations());
    }

    /** The writer lease set with {@link #lease(LeaseSettings)}; empty means "from the environment". */
    public Optional<LeaseSettings> lease() {
        return Optional.ofNullable(lease);
    }

    /** The per-commit input limits of the handle's writes. */
    public WriteLimits writeLimits() {
        return settings.writeLimits();
    }

    /** The budget of the handle's read queries. */
    public QueryLimits queryLimits() {
        return settings.queryLimits();
    }

    /** How long the handle's writes remember idempotency keys; empty means "from the environment". */
    public Optional<IdempotencySettings> idempotency() {
        return Optional.ofNullable(settings.idempotency());
    }

    /**
     * Runs the handle on {@code storageServices} (the storage scheduler and Lance seam graphs of one process share);
     * a private {@link StorageServices#create()} is closed by its owner after every graph on it.
     */
    public OmnigraphBuilder services(StorageServices storageServices) {
        return new OmnigraphBuilder(root, Objects.requireNonNull(storageServices, "services"), lease, settings);
    }

    /**
     * Holds the root with {@code leaseSettings} when the handle writes: the lease duration and renewal, how long to
     * wait for a held root, and whether a local root takes the lease object instead of the OS lock.
     */
    public OmnigraphBuilder lease(LeaseSettings leaseSettings) {
        return new OmnigraphBuilder(root, services, Objects.requireNonNull(leaseSettings, "lease"), settings);
    }

    /** Runs the handle's writes within {@code limits}. */
    public OmnigraphBuilder writeLimits(WriteLimits limits) {
        return with(settings.withWriteLimits(Objects.requireNonNull(limits, "write limits")));
    }

    /** Runs the handle's queries within {@code limits} (a query may still pass its own). */
    public OmnigraphBuilder queryLimits(QueryLimits limits) {
        return with(settings.withQueryLimits(Objects.requireNonNull(limits, "query limits")));
    }

    /** Remembers the handle's idempotency keys as {@code idempotencySettings} say. */
    public OmnigraphBuilder idempotency(IdempotencySettings idempotencySettings) {
        return with(settings.withIdempotency(Objects.requireNonNull(idempotencySettings, "idempotency")));
    }

    /**
     * Records the handle's metrics in {@code registry}: write and step timers by writer kind with their outcome,
     * commit, conflict, refusal, retry, replay and recovery counters, group-commit sizes, queue, sidecar and lease
     * gauges, and storage calls by class (docs/http-api.md, "Metrics"). Without one nothing is recorded.
     */
    public OmnigraphBuilder meterRegistry(MeterRegistry registry) {
        return with(settings.withMeters(Objects.requireNonNull(registry, "meter registry")));
    }

    /**
     * Reports every write (with a child per protocol step), load, merge, schema apply, query and maintenance run
     * as a Micrometer {@code Observation} in {@code registry}; a caller's observation in the Reactor context
     * (Micrometer's {@code "micrometer.observation"} key) becomes its parent. Without one nothing is observed.
     */
    public OmnigraphBuilder observationRegistry(ObservationRegistry registry) {
        return with(settings.withObservations(Objects.requireNonNull(registry, "observation registry")));
    }

    /**
     * Asks {@code authorizer} before every write through the handle (mutate, load, schema apply, branch create,
     * delete and merge) and refuses a denied one with {@code Forbidden}, before any work. Without one every write
     * runs (the HTTP edge decides its own requests; this is for embedders and the CLI).
     */
    public OmnigraphBuilder authorizer(Authorizer authorizer) {
        return with(settings.withAuthorizer(Objects.requireNonNull(authorizer, "authorizer")));
    }

    /**
     * Creates a new graph here with {@code schemaSource} (a {@code .pg} text): the schema contract files, one empty
     * Lance dataset per node/edge type and the {@code __manifest} registering them, then holds it read-write.
     * Refused when the root already holds a graph; an interrupted init leaves a root that an open refuses as
     * half-initialised, never a graph missing a table.
     */
    public Mono<Omnigraph> init(String schemaSource) {
        return init(schemaSource, Failpoints.fromEnvironment());
    }

    Mono<Omnigraph> init(String schemaSource, Failpoints failpoints) {
        return Mono.defer(() -> GraphOpening.init(openedServices(), root, schemaSource, failpoints,
                        lease == null ? LeaseSettings.fromEnvironment() : lease))
                .map(settings::applyTo);
    }

    /**
     * Opens the existing graph here: checks the storage stamp, the schema contract files and that the manifest
     * registers exactly the schema's tables. {@link OpenMode#READ_ONLY} writes nothing and takes no lock;
     * {@link OpenMode#READ_WRITE} first takes the root's writer tenure (the OS lock of a local root, else the lease
     * object; a second process is refused with a {@code conflict} naming the holder, after waiting if the lease says
     * so) and then recovers any interrupted write. On S3 a read-write open first checks that the endpoint honours
     * conditional writes.
     */
    public Mono<Omnigraph> open(OpenMode mode) {
        Objects.requireNonNull(mode, "mode");
        return Mono.defer(() -> GraphOpening.open(openedServices(), root, mode, openLease(mode), false,
                settings::applyTo));
    }

    /**
     * For servers: read-write when this process can hold the root; when another process holds it, a read-only
     * <em>follower</em> that serves reads and refuses writes with {@code lease_lost} (503) naming the holder. A
     * follower never takes over by itself: open again (servers do so periodically).
     */
    public Mono<Omnigraph> openServing() {
        return Mono.defer(() -> GraphOpening.open(openedServices(), root, OpenMode.READ_WRITE,
                        openLease(OpenMode.READ_WRITE), true, settings::applyTo));
    }

    private LeaseSettings openLease(OpenMode mode) {
        if (lease != null) {
            return lease;
        }
        // Only a read-write open reads the lease settings: a read-only one takes nothing and never waits.
        return mode == OpenMode.READ_WRITE ? LeaseSettings.fromEnvironment() : LeaseSettings.defaults();
    }

    private OmnigraphBuilder with(HandleSettings newSettings) {
        return new OmnigraphBuilder(root, services, lease, newSettings);
    }

    /** A string naming the root, for logs. */
    @Override
    public String toString() {
        return "OmnigraphBuilder[" + root.displayUri() + "]";
    }

    /**
     * The per-handle settings a builder hands to every handle it opens. A later open-time option (issue 32's meter
     * registry, issue 34's authorizer) is one more component here and one more setter on the builder.
     */
    record HandleSettings(WriteLimits writeLimits, QueryLimits queryLimits, IdempotencySettings idempotency,
                          MeterRegistry meters, ObservationRegistry observations, Authorizer authorizer) {
        static final HandleSettings DEFAULTS = new HandleSettings(WriteLimits.DEFAULT, QueryLimits.DEFAULT, null,
                null, null, null);

        HandleSettings withAuthorizer(Authorizer newAuthorizer) {
            return new HandleSettings(writeLimits, queryLimits, idempotency, meters, observations, newAuthorizer);
        }

        HandleSettings withWriteLimits(WriteLimits limits) {
            return new HandleSettings(limits, queryLimits, idempotency, meters, observations, authorizer);
        }

        HandleSettings withQueryLimits(QueryLimits limits) {
            return new HandleSettings(writeLimits, limits, idempotency, meters, observations, authorizer);
        }

        HandleSettings withIdempotency(IdempotencySettings settings) {
            return new HandleSettings(writeLimits, queryLimits, settings, meters, observations, authorizer);
        }

        HandleSettings withMeters(MeterRegistry registry) {
            return new HandleSettings(writeLimits, queryLimits, idempotency, registry, observations, authorizer);
        }

        HandleSettings withObservations(ObservationRegistry registry) {
            return new HandleSettings(writeLimits, queryLimits, idempotency, meters, registry, authorizer);
        }

        /** The handle's instrumentation: {@link EngineTelemetry#NONE} unless a registry was given. */
        EngineTelemetry telemetry() {
            return EngineTelemetry.of(meters, observations);
        }

        Omnigraph applyTo(Omnigraph graph) {
            graph.configure(this);
            return graph;
        }
    }
}
