package dev.omnigraph.engine;

import dev.omnigraph.engine.branch.BranchResult;
import dev.omnigraph.engine.diff.ChangeLimits;
import dev.omnigraph.engine.diff.Changes;
import dev.omnigraph.engine.gate.Gates;
import dev.omnigraph.engine.internal.HandleInternals;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.maintain.OptimizeResult;
import dev.omnigraph.engine.maintain.Repair;
import dev.omnigraph.engine.read.QueryLimits;
import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.SchemaFiles;
import dev.omnigraph.engine.write.IdempotencyIndex;
import dev.omnigraph.engine.write.IdempotencySettings;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.engine.write.WriteLimits;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.recovery.SidecarStore;
import dev.omnigraph.storage.BlobRead;
import dev.omnigraph.storage.BlobWindow;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.WriterFence;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.LeaseLost;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.lease.LeaseSettings;
import dev.omnigraph.storage.lease.WriterTenure;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestBatchPublisher;
import dev.omnigraph.storage.manifest.ManifestStore;
import dev.omnigraph.storage.root.GraphRoot;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A handle on one graph root. Everything it does is a {@code Mono}/{@code Flux}; blocking storage work runs on
 * the storage scheduler. Obtain one from the builder: {@code Omnigraph.at(root)...init(schema)} (a new graph),
 * {@code .open(mode)} or {@code .openServing()} (an existing one). Reads and writes are methods of the handle;
 * branch, schema, maintenance and change-feed operations are the families {@link #branches()}, {@link #schema()},
 * {@link #maintenance()} and {@link #changes()}.
 */
public final class Omnigraph implements AutoCloseable {
    static final String INIT_CLAIM = GraphInit.CLAIM;

    static {
        HandleInternals.install(handle -> {
            if (handle instanceof Omnigraph graph) return graph.internals;
            throw new IllegalArgumentException("not a graph handle: " + handle.getClass().getName());
        });
    }

    private final GraphRoot root;
    private final OpenMode mode;
    private final StorageServices services;
    private final ObjectStore files;
    private final ManifestStore manifest;
    private final ManifestBatchPublisher publisher;
    /** The accepted schema and the main version it is current at; replaced by a schema change. */
    private final HandleSchema schema;
    private final Failpoints failpoints = Failpoints.fromEnvironment();
    private final SidecarStore sidecars;
    private volatile WriteLimits limits = WriteLimits.DEFAULT;
    private volatile QueryLimits queryLimits = QueryLimits.DEFAULT;
    /** This handle's share of the root's writer tenure (OS lock or lease); null on a read-only handle. */
    private final WriterTenure tenure;
    /** Set on a follower (read-only because another process holds the root): that process, for write refusals. */
    private volatile String writerElsewhere;
    private volatile IdempotencySettings idempotency = IdempotencySettings.fromEnvironment();
    /** Metrics, observations and write logs; {@link dev.omnigraph.engine.observe.EngineTelemetry#NONE} unless configured. */
    private volatile dev.omnigraph.engine.observe.EngineTelemetry telemetry = dev.omnigraph.engine.observe.EngineTelemetry.NONE;
    /** Asked before every write; null means none (every write runs). */
    private volatile Authorizer authorizer;
    private final GraphReads reads;
    private final GraphWrites writes;
    private final GraphBranching branching;
    private final GraphUpkeep upkeep;
    private final BranchOperations branchOperations;
    private final SchemaOperations schemaOperations;
    private final MaintenanceOperations maintenanceOperations;
    private final HandleInternals internals = new OmnigraphInternals(this);
    /** The minor compactions this handle's writes trigger (see {@link dev.omnigraph.engine.maintain.MinorCompactions}). */
    final dev.omnigraph.engine.maintain.MinorCompactions compactions = new dev.omnigraph.engine.maintain.MinorCompactions();

    Omnigraph(GraphRoot root, OpenMode mode, StorageServices services, ObjectStore files, ManifestStore manifest,
              SchemaFiles.Accepted schema, WriterTenure tenure) {
        this.root = root;
        this.tenure = tenure;
        this.mode = mode;
        this.services = services;
        this.files = files;
        this.manifest = manifest;
        this.publisher = new ManifestBatchPublisher(manifest, tenure == null ? WriterFence.NONE : tenure);
        this.schema = new HandleSchema(root, mode, files, manifest, schema);
        // A read-write handle holds the writer tenure, so it may answer sidecar listings from the shared view.
        this.sidecars = tenure == null ? new SidecarStore(files, failpoints)
                : SidecarStore.shared(root.uri(), files, failpoints);
        this.reads = new GraphReads(root, services, files, manifest, this.schema, failpoints);
        this.writes = new GraphWrites(this, this.schema);
        this.branching = new GraphBranching(this);
        this.upkeep = new GraphUpkeep(this);
        this.branchOperations = new BranchOperations(this, branching);
        this.schemaOperations = new SchemaOperations(this, writes);
        this.maintenanceOperations = new MaintenanceOperations(this, writes, upkeep);
    }

    // ---- the front door -------------------------------------------------------------------------------------

    /** A builder for the graph in local directory {@code root}. */
    public static OmnigraphBuilder at(Path root) {
        return OmnigraphBuilder.at(new GraphRoot.Local(root));
    }

    /**
     * A builder for the graph at {@code root}: a {@code file:} URI, or an {@code s3://bucket/prefix} URI (S3
     * settings from the environment). Other schemes are a {@code BadRequest}.
     */
    public static OmnigraphBuilder at(URI root) {
        return OmnigraphBuilder.at(OmnigraphBuilder.rootOf(root));
    }

    /** A builder for the graph at {@code root}, a local directory or an S3 prefix with its settings. */
    public static OmnigraphBuilder at(GraphRoot root) {
        return OmnigraphBuilder.at(root);
    }

    // ---- deprecated entry points (one release): one-liners over the builder ---------------------------------

    /** Creates a graph on the shared services. @deprecated use {@code Omnigraph.at(root).init(schemaSource)}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static Mono<Omnigraph> init(Path root, String schemaSource) {
        return at(root).init(schemaSource);
    }

    /** Creates a graph. @deprecated use {@code Omnigraph.at(root).services(services).init(schemaSource)}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static Mono<Omnigraph> init(StorageServices services, Path root, String schemaSource) {
        return at(root).services(services).init(schemaSource);
    }

    /** Creates a graph. @deprecated use {@code Omnigraph.at(root).services(services).init(schemaSource)}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static Mono<Omnigraph> init(StorageServices services, GraphRoot root, String schemaSource) {
        return at(root).services(services).init(schemaSource);
    }

    /** Creates a graph. @deprecated use {@code Omnigraph.at(root).services(s).lease(lease).init(schemaSource)}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static Mono<Omnigraph> init(StorageServices services, Path root, String schemaSource, LeaseSettings lease) {
        return at(root).services(services).lease(lease).init(schemaSource);
    }

    /** Creates a graph. @deprecated use {@code Omnigraph.at(root).services(s).lease(lease).init(schemaSource)}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static Mono<Omnigraph> init(StorageServices services, GraphRoot root, String schemaSource, LeaseSettings lease) {
        return at(root).services(services).lease(lease).init(schemaSource);
    }

    /** Init with the failpoints ({@code init.*}) a test armed. */
    static Mono<Omnigraph> init(StorageServices services, Path root, String schemaSource, Failpoints failpoints) {
        return at(root).services(services).init(schemaSource, failpoints);
    }

    /** Init with the failpoints ({@code init.*}) a test armed. */
    static Mono<Omnigraph> init(StorageServices services, GraphRoot root, String schemaSource, Failpoints failpoints) {
        return at(root).services(services).init(schemaSource, failpoints);
    }

    /** Opens a graph on the shared services. @deprecated use {@code Omnigraph.at(root).open(mode)}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static Mono<Omnigraph> open(Path root, OpenMode mode) {
        return at(root).open(mode);
    }

    /** Opens a graph. @deprecated use {@code Omnigraph.at(root).services(services).open(mode)}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static Mono<Omnigraph> open(StorageServices services, Path root, OpenMode mode) {
        return at(root).services(services).open(mode);
    }

    /** Opens a graph. @deprecated use {@code Omnigraph.at(root).services(services).open(mode)}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static Mono<Omnigraph> open(StorageServices services, GraphRoot root, OpenMode mode) {
        return at(root).services(services).open(mode);
    }

    /** Opens a graph. @deprecated use {@code Omnigraph.at(root).services(s).lease(lease).open(mode)}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static Mono<Omnigraph> open(StorageServices services, Path root, OpenMode mode, LeaseSettings lease) {
        return at(root).services(services).lease(lease).open(mode);
    }

    /** Opens a graph. @deprecated use {@code Omnigraph.at(root).services(s).lease(lease).open(mode)}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static Mono<Omnigraph> open(StorageServices services, GraphRoot root, OpenMode mode, LeaseSettings lease) {
        return at(root).services(services).lease(lease).open(mode);
    }

    /** Opens a writer or follower. @deprecated use {@code Omnigraph.at(root).services(s).lease(l).openServing()}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static Mono<Omnigraph> openServing(StorageServices services, Path root, LeaseSettings lease) {
        return at(root).services(services).lease(lease).openServing();
    }

    /** Opens a writer or follower. @deprecated use {@code Omnigraph.at(root).services(s).lease(l).openServing()}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static Mono<Omnigraph> openServing(StorageServices services, GraphRoot root, LeaseSettings lease) {
        return at(root).services(services).lease(lease).openServing();
    }

    /** Applies a builder's per-handle settings (limits, idempotency) to this newly opened handle. */
    void configure(OmnigraphBuilder.HandleSettings settings) {
        this.authorizer = settings.authorizer();
        this.limits = settings.writeLimits();
        this.queryLimits = settings.queryLimits();
        if (settings.idempotency() != null) {
            this.idempotency = settings.idempotency();
        }
        this.telemetry = settings.telemetry();
        if (settings.meters() != null) {
            bindMeters(settings.meters());
        }
    }

    /**
     * Refuses a write the handle's authorizer denies, before any work; a no-op without one. The message names the
     * action and the branches, never why.
     */
    void authorize(Authorizer.Action action, Optional<String> actor, Optional<String> branch, Optional<String> target) {
        Authorizer current = authorizer;
        if (current == null) return;
        if (!current.allows(new Authorizer.Access(actor, action, branch, target))) {
            StringBuilder what = new StringBuilder("not allowed: ").append(action.wireName());
            branch.ifPresent(b -> what.append(", branch '").append(b).append('\''));
            target.ifPresent(b -> what.append(", target branch '").append(b).append('\''));
            throw new dev.omnigraph.storage.error.Forbidden(action.wireName(), what.toString());
        }
    }

    /** The handle's gauges and, when its services count them, its storage calls by class. */
    private void bindMeters(io.micrometer.core.instrument.MeterRegistry meters) {
        if (services.tables() instanceof dev.omnigraph.storage.CountingTableStorage counting) {
            dev.omnigraph.engine.observe.HandleMeters.bindStorage(meters, counting.counter());
        }
        meteredBy = meters;
        dev.omnigraph.engine.observe.HandleMeters.bind(meters, readings);
        dev.omnigraph.engine.observe.ReadCacheMeters.bind(meters, services.tables().keptHandles());
    }

    /** The registry whose gauges count this handle until it closes; null when none. */
    private volatile io.micrometer.core.instrument.MeterRegistry meteredBy;

    /** What this handle shows the registry's gauges (held by the registry only while the handle is open). */
    private final dev.omnigraph.engine.observe.HandleMeters.Readings readings =
            new dev.omnigraph.engine.observe.HandleMeters.Readings() {
                /** The root the gauges are keyed by. */
                @Override
                public String root() {
                    return root.uri();
                }

                /** Writes waiting at this root's gates. */
                @Override
                public int queuedWrites() {
                    return dev.omnigraph.engine.write.DirectPublishPipeline.queuedWrites(gates());
                }

                /** Recovery sidecars this handle knows to be pending. */
                @Override
                public int knownSidecars() {
                    return sidecars.knownPending();
                }

                /** Whether this handle holds the writer lease. */
                @Override
                public boolean holdsTenure() {
                    return tenure != null && !writerTenureLost();
                }

                /** The writer lease epoch (0 without a lease). */
                @Override
                public long epoch() {
                    return tenure == null ? 0 : tenure.epoch();
                }
            };

    private void unbindMeters() {
        io.micrometer.core.instrument.MeterRegistry meters = meteredBy;
        if (meters != null) {
            dev.omnigraph.engine.observe.HandleMeters.unbind(meters, readings);
        }
    }

    /** This handle's instrumentation (metrics, observations, write logs). */
    dev.omnigraph.engine.observe.EngineTelemetry telemetry() {
        return telemetry;
    }

    /** Records this handle's schema as current at main manifest version {@code mainVersion}; adopts a newer one. */
    Omnigraph labelSchema(long mainVersion) {
        schema.label(mainVersion);
        return this;
    }

    /** Makes this handle a follower: read-only because {@code holder} (another process) holds the root. */
    void followWriterElsewhere(String holder) {
        writerElsewhere = holder;
    }

    // ---- reads ----------------------------------------------------------------------------------------------

    /**
     * The canonical root directory of this graph (absolute, symlinks resolved). A graph on S3 has none: use
     * {@link #location()}.
     */
    public Path root() {
        if (root instanceof GraphRoot.Local local) {
            return local.directory();
        }
        throw new BadRequest("the graph at " + root + " is on object storage and has no local directory");
    }

    /** Where this graph lives: its canonical local directory or its S3 prefix. */
    public GraphRoot location() {
        return root;
    }

    ObjectStore objectStore() {
        return files;
    }

    /**
     * Whether this handle can no longer write because its process lost the writer lease (a server then opens the
     * graph again, as a follower or, once the lease is free, as the writer). No storage call.
     */
    public boolean writerTenureLost() {
        if (tenure == null) {
            return false;
        }
        try {
            tenure.requireHeld();
            return false;
        } catch (LeaseLost lost) {
            return true;
        }
    }

    /** Whether this handle may write. */
    public OpenMode mode() {
        return mode;
    }

    /** The compiled schema (types, properties, keys). @deprecated use {@code schema().catalog()}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Catalog catalog() {
        return schema.current().catalog();
    }

    /** The accepted {@code .pg} source of the schema. @deprecated use {@code schema().source()}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public String schemaSource() {
        return schema.current().source();
    }

    /** The schema this handle currently accepts (replaced by a schema apply). */
    SchemaFiles.Accepted acceptedSchema() {
        return schema.current();
    }

    /** Resolves a read target to one pinned manifest state (and the commit it stands for). */
    public Mono<GraphSnapshot> snapshot(ReadTarget target) {
        return reads.snapshot(target);
    }

    /**
     * Runs read query {@code queryName} of {@code source} against one pinned snapshot of {@code target}.
     * Compile and parameter errors fail the Mono before any I/O.
     */
    public Mono<QueryOutput> query(ReadTarget target, String source, String queryName, Map<String, Object> params) {
        return query(target, source, queryName, params, queryLimits);
    }

    /**
     * {@link #query(ReadTarget, String, String, Map)} within {@code limits} instead of this handle's: the rows fail
     * with {@code ResourceLimitExceeded} or {@code QueryTimeout} when the query passes them.
     */
    public Mono<QueryOutput> query(ReadTarget target, String source, String queryName, Map<String, Object> params,
                                   QueryLimits limits) {
        return telemetry.observe("omnigraph.query", "query", reads.query(target, source, queryName, params, limits));
    }

    /** The graph at {@code target} as NDJSON lines in the load format (nodes first, then edges). */
    public Flux<String> export(ReadTarget target, Set<String> typeNames) {
        return telemetry.observe("omnigraph.query", "export", reads.export(target, typeNames));
    }

    /**
     * The bytes of Blob property {@code property} of entity {@code id} of {@code typeName} at {@code target}.
     * {@code NotFound} when the entity does not exist there or the value is NULL; {@code BadRequest} for an unknown
     * type or a property that is not a Blob.
     */
    public Mono<byte[]> blob(ReadTarget target, String typeName, String id, String property) {
        return reads.blob(target, typeName, id, property, BlobWindow.whole()).map(BlobRead.Slice::bytes);
    }

    /**
     * As {@link #blob}, only the bytes {@code window} picks once the blob's size is known, with that size: a
     * blob-encoded column reads just those bytes. {@code BlobRangeNotSatisfiable} when the window starts past the end.
     */
    public Mono<BlobRead.Slice> blob(ReadTarget target, String typeName, String id, String property, BlobWindow window) {
        return reads.blob(target, typeName, id, property, window);
    }

    /** Commits visible on {@code branch}, newest first (a branch also shows the history it forked from). */
    public Flux<GraphCommit> commits(String branch) {
        return reads.commits(branch);
    }

    /** Commit {@code commitId}; {@code NotFound} when the graph has no such commit. */
    public Mono<GraphCommit> commit(String commitId) {
        return reads.commit(commitId);
    }

    // ---- the operation families -----------------------------------------------------------------------------

    /** Commit diffs and the change feed, over this handle's storage and schema. */
    public ChangeOperations changes() {
        return new ChangeOperations(reads.changes(ChangeLimits.DEFAULT));
    }

    /** Branches: list, create, delete, merge. */
    public BranchOperations branches() {
        return branchOperations;
    }

    /** The schema: the accepted one, and planning and applying a new one. */
    public SchemaOperations schema() {
        return schemaOperations;
    }

    /** Index upkeep, compaction, version cleanup, drift repair and the recovery audit. */
    public MaintenanceOperations maintenance() {
        return maintenanceOperations;
    }

    /** Creates a branch. @deprecated use {@code branches().create(BranchOperations.Create.of(name).from(..))}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Mono<BranchResult.Created> createBranch(String name, Optional<String> from) {
        return branching.create(name, from);
    }

    /** Deletes a branch. @deprecated use {@code branches().delete(name)}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Mono<BranchResult.Deleted> deleteBranch(String name) {
        return branching.delete(name);
    }

    /** Merges two branches. @deprecated use {@code branches().merge(BranchOperations.Merge.of(source, target))}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Mono<dev.omnigraph.engine.merge.MergeResult> mergeBranch(String source, String target, boolean deleteSource,
                                                                   Optional<String> actorId) {
        return branching.merge(source, target, deleteSource, actorId);
    }

    // ---- writes ---------------------------------------------------------------------------------------------

    /**
     * Runs mutation {@code queryName} of {@code source} on {@code branch} as one atomic commit. The query is
     * compiled and its params bound before any I/O; the result carries the commit (empty when nothing changed).
     */
    public Mono<WriteOutcome> mutate(String branch, String source, String queryName, Map<String, Object> params,
                                     WriteOptions options) {
        return writes.mutate(branch, source, queryName, params, options);
    }

    /** Loads NDJSON bytes (streamed, never buffered whole) into {@code branch} as one commit. */
    public Mono<WriteOutcome> load(String branch, LoadMode mode, Flux<ByteBuffer> ndjson, LoadOptions options) {
        return writes.load(branch, mode, ndjson, options);
    }

    /** Loads an NDJSON file (read on the storage scheduler) into {@code branch} as one commit. */
    public Mono<WriteOutcome> load(String branch, LoadMode mode, Path ndjsonFile, LoadOptions options) {
        return writes.load(branch, mode, ndjsonFile, options, progress -> { });
    }

    /**
     * {@link #load(String, LoadMode, Path, LoadOptions)}, telling {@code progress} how much of the file was read
     * after each chunk (for a progress bar: compare with the file's size). The listener runs on the storage
     * scheduler and must not block.
     */
    public Mono<WriteOutcome> load(String branch, LoadMode mode, Path ndjsonFile, LoadOptions options,
                                   java.util.function.Consumer<LoadProgress> progress) {
        return writes.load(branch, mode, ndjsonFile, options, java.util.Objects.requireNonNull(progress, "progress"));
    }

    /** Builds missing indexes. @deprecated use {@code maintenance().ensureIndexes(Target.branch(branch))}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Mono<dev.omnigraph.engine.index.EnsureResult> ensureIndexes(String branch, Optional<String> actorId) {
        return writes.ensureIndexes(branch, actorId);
    }

    // ---- deprecated family verbs (one release) ----------------------------------------------------------------

    /** The recovery audit log. @deprecated use {@code maintenance().recoveries()}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Flux<RecoveryRecord> recoveries() {
        return maintenanceOperations.recoveries();
    }

    /** Reports (and publishes) drift. @deprecated use {@code maintenance().repair(RepairDrift)}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Mono<List<Repair.Drift>> repair(boolean confirm, boolean force) {
        return upkeep.repair(confirm, force);
    }

    /** Optimizes main. @deprecated use {@code maintenance().optimize(Target.main())}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Mono<OptimizeResult> optimize(Optional<String> actor) {
        return upkeep.optimize(GraphBranches.MAIN, actor);
    }

    /** Optimizes a branch. @deprecated use {@code maintenance().optimize(Target.branch(branch))}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Mono<OptimizeResult> optimize(String branch, Optional<String> actor) {
        return upkeep.optimize(branch, actor);
    }

    /** Version GC. @deprecated use {@code maintenance().cleanup(options)}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Mono<dev.omnigraph.engine.cleanup.CleanupReport> cleanup(dev.omnigraph.engine.cleanup.CleanupOptions options) {
        return upkeep.cleanup(options);
    }

    /** Plans a schema change. @deprecated use {@code schema().plan(source)}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Mono<dev.omnigraph.engine.evolve.SchemaPlan> planSchema(String source) {
        return writes.planSchema(source);
    }

    /** Applies a schema. @deprecated use {@code schema().apply(SchemaOperations.Apply.of(source))}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Mono<dev.omnigraph.engine.evolve.SchemaApplyResult> applySchema(String source, boolean allowDataLoss,
                                                                          Optional<String> actorId) {
        return writes.applySchema(source, allowDataLoss, actorId);
    }

    // ---- handle settings ------------------------------------------------------------------------------------

    /** Per-commit input limits of this handle's writes. */
    public WriteLimits limits() {
        return limits;
    }

    /** The budget of this handle's read queries (see {@link QueryLimits} for the defaults). */
    public QueryLimits queryLimits() {
        return queryLimits;
    }

    /** How long this handle's writes remember idempotency keys, and the clock that ages them. */
    public IdempotencySettings idempotency() {
        return idempotency;
    }

    /** Sets this handle's write limits. @deprecated set them at open: {@code Omnigraph.at(root).writeLimits(..)}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Omnigraph withLimits(WriteLimits newLimits) {
        this.limits = java.util.Objects.requireNonNull(newLimits, "write limits");
        return this;
    }

    /** Sets this handle's query budget. @deprecated set it at open: {@code Omnigraph.at(root).queryLimits(..)}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Omnigraph withQueryLimits(QueryLimits newLimits) {
        this.queryLimits = java.util.Objects.requireNonNull(newLimits, "query limits");
        return this;
    }

    /** Sets this handle's key retention. @deprecated set it at open: {@code Omnigraph.at(root).idempotency(..)}. */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Omnigraph withIdempotency(IdempotencySettings settings) {
        this.idempotency = java.util.Objects.requireNonNull(settings, "settings");
        return this;
    }

    // ---- internals (package-private here; other packages use HandleInternals) --------------------------------

    Failpoints failpoints() {
        return failpoints;
    }

    /** Sets how many commits of this handle to one table are followed by a minor compaction (0: off). */
    Omnigraph minorCompactionEvery(int commitsPerTable) {
        compactions.every(commitsPerTable);
        return this;
    }

    IdempotencyIndex idempotencyIndex() {
        return IdempotencyIndex.forRoot(root.uri());
    }

    Gates gates() {
        return Gates.forRoot(root.uri());
    }

    Flux<Sidecar> pendingSidecars() {
        return sidecars.list();
    }

    /** The change engine with page bounds {@code changeLimits}. */
    Changes changes(ChangeLimits changeLimits) {
        return reads.changes(changeLimits);
    }

    WriteContext writeContext() {
        SchemaFiles.Accepted accepted = schema.current();
        return new WriteContext(root.uri(), accepted.catalog(), accepted.state().schemaIrHash(),
                accepted.state().schemaIdentityDomain(), services.tables(), manifest, publisher, sidecars, gates(),
                failpoints, limits, idempotency, telemetry);
    }

    SidecarStore sidecars() {
        return sidecars;
    }

    // ---- internals shared with writers ----------------------------------------------------------------------

    StorageServices services() {
        return services;
    }

    ObjectStore files() {
        return files;
    }

    ManifestStore manifest() {
        return manifest;
    }

    ManifestBatchPublisher publisher() {
        return publisher;
    }

    /** Refuses writes on a read-only handle before any work. */
    void requireWritable(String operation) {
        String holder = writerElsewhere;
        if (holder != null) {
            throw new LeaseLost(0, operation + " refused: this process serves the graph read-only because " + holder);
        }
        if (tenure != null) {
            tenure.requireHeld(); // a handle whose lease is known lost stops writing at once
        }
        if (mode != OpenMode.READ_WRITE) {
            throw new BadRequest(operation + " needs a read-write handle; " + root + " was opened read-only");
        }
    }

    Optional<NodeTable> nodeTable(String typeName) {
        return schema.current().catalog().node(typeName);
    }

    static long nowMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000L;
    }

    /**
     * Gives back this handle's share of the root's writer tenure (the process keeps it while any other
     * read-write handle on the root is open). Storage services are shared and stay up. Closing twice is harmless.
     */
    @Override
    public void close() {
        unbindMeters();
        if (tenure != null) {
            tenure.close();
        }
    }

    /** As {@link #close()}, completing once this handle's share of the writer tenure is given back. */
    public Mono<Void> closeAsync() {
        unbindMeters();
        return tenure == null ? Mono.empty() : tenure.release();
    }
}
