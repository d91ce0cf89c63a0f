package dev.omnigraph.engine;

import dev.omnigraph.engine.branch.BranchResult;
import dev.omnigraph.engine.diff.ChangeLimits;
import dev.omnigraph.engine.diff.Changes;
import dev.omnigraph.engine.gate.Gates;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.maintain.OptimizeResult;
import dev.omnigraph.engine.maintain.Optimizer;
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
import dev.omnigraph.recovery.RecoveryAudit;
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
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestBatchPublisher;
import dev.omnigraph.storage.manifest.ManifestStore;
import dev.omnigraph.storage.root.GraphRoot;
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
 * the storage scheduler. Obtain one with {@link #init} (a new graph) or {@link #open} (an existing one).
 */
public final class Omnigraph implements AutoCloseable {
    static final String INIT_CLAIM = GraphInit.CLAIM;

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
    private final GraphReads reads;
    private final GraphWrites writes;
    private final GraphBranching branching;
    private final GraphUpkeep upkeep;
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
    }

    // ---- init -----------------------------------------------------------------------------------------------

    /** Creates a new graph at {@code root} with {@code schemaSource}, on the shared storage services. */
    public static Mono<Omnigraph> init(Path root, String schemaSource) {
        return init(StorageServices.shared(), root, schemaSource);
    }

    /**
     * Creates a new graph at {@code root}: the schema contract files, one empty Lance dataset per node/edge type,
     * and the {@code __manifest} registering them all. Refused when {@code root} already holds a graph. An
     * interrupted init leaves a root that {@link #open} refuses as half-initialised, never a graph missing a table.
     */
    public static Mono<Omnigraph> init(StorageServices services, Path root, String schemaSource) {
        return init(services, new GraphRoot.Local(root), schemaSource);
    }

    /** Creates a new graph at {@code root} (a local directory or an S3 prefix); see {@link #init(StorageServices, Path, String)}. */
    public static Mono<Omnigraph> init(StorageServices services, GraphRoot root, String schemaSource) {
        return init(services, root, schemaSource, Failpoints.fromEnvironment());
    }

    /** As {@link #init(StorageServices, Path, String)}, with the failpoints ({@code init.*}) a test armed. */
    static Mono<Omnigraph> init(StorageServices services, Path root, String schemaSource, Failpoints failpoints) {
        return init(services, new GraphRoot.Local(root), schemaSource, failpoints);
    }

    static Mono<Omnigraph> init(StorageServices services, GraphRoot root, String schemaSource, Failpoints failpoints) {
        return Mono.defer(() -> init(services, root, schemaSource, failpoints, LeaseSettings.fromEnvironment()));
    }

    /** As {@link #init(StorageServices, Path, String)}, holding the new root with {@code lease}. */
    public static Mono<Omnigraph> init(StorageServices services, Path root, String schemaSource, LeaseSettings lease) {
        return init(services, new GraphRoot.Local(root), schemaSource, lease);
    }

    /** As {@link #init(StorageServices, GraphRoot, String)}, holding the new root with {@code lease}. */
    public static Mono<Omnigraph> init(StorageServices services, GraphRoot root, String schemaSource, LeaseSettings lease) {
        return init(services, root, schemaSource, Failpoints.fromEnvironment(), lease);
    }

    private static Mono<Omnigraph> init(StorageServices services, GraphRoot root, String schemaSource,
                                        Failpoints failpoints, LeaseSettings lease) {
        return GraphOpening.init(services, root, schemaSource, failpoints, lease);
    }

    // ---- open -----------------------------------------------------------------------------------------------

    /** Opens the graph at {@code root} in {@code mode}, on the shared storage services. */
    public static Mono<Omnigraph> open(Path root, OpenMode mode) {
        return open(StorageServices.shared(), root, mode);
    }

    /**
     * Opens an existing graph: checks the storage stamp, the schema contract files, and that the manifest's
     * registered tables are exactly the schema's. A read-only open writes nothing at all and takes no lock.
     *
     * <p>A read-write open first takes the root's writer tenure ({@link WriterTenure}: the OS lock of a local root,
     * else the lease object): handles in this process share it, and a second process is refused with a
     * {@code conflict} naming the holder (after waiting, if the lease settings say so), because its recovery sweep
     * would otherwise run underneath the holder's in-flight writes. Settings come from the environment
     * ({@link LeaseSettings#fromEnvironment()}).
     */
    public static Mono<Omnigraph> open(StorageServices services, Path root, OpenMode mode) {
        return open(services, new GraphRoot.Local(root), mode);
    }

    /**
     * Opens the graph at {@code root}, a local directory or an S3 prefix. On S3 a read-write open first checks
     * that the endpoint honours conditional writes (refused with a {@code storage_fault} otherwise) and takes the
     * lease object under the root.
     */
    public static Mono<Omnigraph> open(StorageServices services, GraphRoot root, OpenMode mode) {
        // Only a read-write open reads the lease settings: a read-only one takes nothing and never waits.
        return Mono.defer(() -> open(services, root, mode,
                mode == OpenMode.READ_WRITE ? LeaseSettings.fromEnvironment() : LeaseSettings.defaults()));
    }

    /**
     * As {@link #open(StorageServices, Path, OpenMode)}, holding the root with {@code lease} when read-write: the
     * lease duration and renewal, how long to wait for a held root, and whether a local root takes the lease object
     * instead of the OS lock.
     */
    public static Mono<Omnigraph> open(StorageServices services, Path root, OpenMode mode, LeaseSettings lease) {
        return open(services, new GraphRoot.Local(root), mode, lease);
    }

    /** As {@link #open(StorageServices, Path, OpenMode, LeaseSettings)}, for any kind of root. */
    public static Mono<Omnigraph> open(StorageServices services, GraphRoot root, OpenMode mode, LeaseSettings lease) {
        return open(services, root, mode, lease, false);
    }

    /**
     * For servers: read-write when this process can hold the root; when another process holds it, a read-only
     * <em>follower</em> that serves reads and refuses writes with {@code lease_lost} (503) naming the holder, so
     * clients send writes there. A follower never takes over by itself: open again (servers do so periodically).
     */
    public static Mono<Omnigraph> openServing(StorageServices services, Path root, LeaseSettings lease) {
        return openServing(services, new GraphRoot.Local(root), lease);
    }

    /** As {@link #openServing(StorageServices, Path, LeaseSettings)}, for any kind of root. */
    public static Mono<Omnigraph> openServing(StorageServices services, GraphRoot root, LeaseSettings lease) {
        return open(services, root, OpenMode.READ_WRITE, lease, true);
    }

    private static Mono<Omnigraph> open(StorageServices services, GraphRoot root, OpenMode mode, LeaseSettings lease,
                                        boolean follow) {
        return GraphOpening.open(services, root, mode, lease, follow);
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

    /** The root's small-object store (its directory or S3 prefix), for files kept beside the graph: stored queries. */
    public ObjectStore objectStore() {
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

    /** The compiled schema the graph was opened with (types, properties, keys). */
    public Catalog catalog() {
        return schema.current().catalog();
    }

    /** The accepted {@code .pg} source of the graph's schema. */
    public String schemaSource() {
        return schema.current().source();
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
        return reads.query(target, source, queryName, params, limits);
    }

    /** The graph at {@code target} as NDJSON lines in the load format (nodes first, then edges). */
    public Flux<String> export(ReadTarget target, Set<String> typeNames) {
        return reads.export(target, typeNames);
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

    /** Commit diffs, the change feed and the row-delta engine, over this handle's storage and schema. */
    public Changes changes() {
        return changes(ChangeLimits.DEFAULT);
    }

    /** {@link #changes()} with other page bounds. */
    public Changes changes(ChangeLimits limits) {
        return reads.changes(limits);
    }

    // ---- branches -------------------------------------------------------------------------------------------

    /** Graph branches with their identities, main first. */
    public Mono<List<BranchIdentity>> branches() {
        return manifest.branches();
    }

    /**
     * Creates branch {@code name} from {@code from} (a branch or a commit id; main when empty). Lazy: no table is
     * copied; the branch reads every table through the pins it inherited until its first write to that table.
     */
    public Mono<BranchResult.Created> createBranch(String name, Optional<String> from) {
        return branching.create(name, from);
    }

    /** Deletes branch {@code name} (never main, never a branch others still fork from). */
    public Mono<BranchResult.Deleted> deleteBranch(String name) {
        return branching.delete(name);
    }

    /**
     * Merges the current head of branch {@code source} into {@code target} as one commit (three-way, entity by
     * entity; see {@code engine.merge}). With {@code deleteSource}, a successful merge then deletes the source; a
     * refused delete is reported in the result, never as a failure of the merge.
     */
    public Mono<dev.omnigraph.engine.merge.MergeResult> mergeBranch(String source, String target, boolean deleteSource,
                                                                   Optional<String> actorId) {
        return branching.merge(source, target, deleteSource, actorId);
    }

    /**
     * For {@code load --from}: creates {@code branch} from {@code from} unless it exists; emits whether it did.
     * Without {@code from} the branch must already exist.
     */
    public Mono<Boolean> ensureBranch(String branch, Optional<String> from) {
        return branching.ensure(branch, from);
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
        return writes.load(branch, mode, ndjsonFile, options);
    }

    /**
     * Builds, on every table of {@code branch}, the indexes its schema implies that it lacks (EnsureIndices: one
     * commit, or none when nothing is missing). On a graph branch, tables it still inherits are forked first.
     */
    public Mono<dev.omnigraph.engine.index.EnsureResult> ensureIndexes(String branch, Optional<String> actorId) {
        return writes.ensureIndexes(branch, actorId);
    }

    // ---- maintenance ----------------------------------------------------------------------------------------

    /** The recovery audit log: one record per sidecar recovery ever finished on this graph, oldest first. */
    public Flux<RecoveryRecord> recoveries() {
        return new RecoveryAudit(root.uri(), services.tables()).list();
    }

    /**
     * Reports tables whose live HEAD differs from their manifest pin with no sidecar covering them, classified from
     * their history; with {@code confirm}, publishes the verified (compaction-only) drift forward, and with
     * {@code force} too, every other drift ahead of its pin. Never rewrites table data.
     */
    public Mono<List<Repair.Drift>> repair(boolean confirm, boolean force) {
        return upkeep.repair(confirm, force);
    }

    /** Optimizes main: {@link #optimize(String, Optional)}. */
    public Mono<OptimizeResult> optimize(Optional<String> actor) {
        return optimize(GraphBranches.MAIN, actor);
    }

    /**
     * Compacts {@code branch}'s own tables (main: all; a branch: its forked ones) and brings their indexes up to
     * the schema, as one tracked maintenance write (see {@link Optimizer}); tables already compact and fully
     * indexed are left alone and tables with uncovered drift are skipped and reported.
     */
    public Mono<OptimizeResult> optimize(String branch, Optional<String> actor) {
        return upkeep.optimize(branch, actor);
    }

    /**
     * Version GC (see {@link dev.omnigraph.engine.cleanup.Cleanup} for the retention rule); unconfirmed it only
     * reports what would go. Deleting needs a read-write handle.
     */
    public Mono<dev.omnigraph.engine.cleanup.CleanupReport> cleanup(dev.omnigraph.engine.cleanup.CleanupOptions options) {
        return upkeep.cleanup(options);
    }

    // ---- handle settings ------------------------------------------------------------------------------------

    /** The failpoints of this handle (armed from the environment; tests arm more). */
    public Failpoints failpoints() {
        return failpoints;
    }

    /** Per-commit input limits of this handle's writes. */
    public WriteLimits limits() {
        return limits;
    }

    /**
     * Sets how many commits of this handle to one table are followed by a minor compaction of its small fragments
     * ({@link dev.omnigraph.engine.maintain.MinorCompactions#EVERY_WRITES} suggested; 0, the default, turns them
     * off); returns this handle. Each compaction is a commit of its own, after the write's.
     */
    public Omnigraph minorCompactionEvery(int commitsPerTable) {
        compactions.every(commitsPerTable);
        return this;
    }

    /** Sets the per-commit input limits of this handle's later writes; returns this handle. */
    public Omnigraph withLimits(WriteLimits newLimits) {
        this.limits = newLimits;
        return this;
    }

    /** The budget of this handle's read queries (see {@link QueryLimits} for the defaults). */
    public QueryLimits queryLimits() {
        return queryLimits;
    }

    /** Sets the budget of this handle's later queries; returns this handle. */
    public Omnigraph withQueryLimits(QueryLimits newLimits) {
        this.queryLimits = java.util.Objects.requireNonNull(newLimits, "query limits");
        return this;
    }

    /** How long this handle's writes remember idempotency keys, and the clock that ages them. */
    public IdempotencySettings idempotency() {
        return idempotency;
    }

    /** Sets how long this handle's writes remember idempotency keys; returns this handle. */
    public Omnigraph withIdempotency(IdempotencySettings settings) {
        this.idempotency = java.util.Objects.requireNonNull(settings, "settings");
        return this;
    }

    /** The idempotency keys of this root (shared with every other handle on it in this process). */
    public IdempotencyIndex idempotencyIndex() {
        return IdempotencyIndex.forRoot(root.uri());
    }

    /** The process-local gates of this root (shared with every other handle on it). */
    public Gates gates() {
        return Gates.forRoot(root.uri());
    }

    // ---- schema changes -------------------------------------------------------------------------------------

    /** The plan from the accepted schema to {@code source}, against main's current data; changes nothing. */
    public Mono<dev.omnigraph.engine.evolve.SchemaPlan> planSchema(String source) {
        return writes.planSchema(source);
    }

    /**
     * Applies {@code source} as the graph's schema (see {@link dev.omnigraph.engine.evolve.SchemaApplier});
     * afterwards this handle reads, writes and compiles queries against the new schema.
     */
    public Mono<dev.omnigraph.engine.evolve.SchemaApplyResult> applySchema(String source, boolean allowDataLoss,
                                                                          Optional<String> actorId) {
        return writes.applySchema(source, allowDataLoss, actorId);
    }

    WriteContext writeContext() {
        SchemaFiles.Accepted accepted = schema.current();
        return new WriteContext(root.uri(), accepted.catalog(), accepted.state().schemaIrHash(),
                accepted.state().schemaIdentityDomain(), services.tables(), manifest, publisher, sidecars, gates(),
                failpoints, limits, idempotency);
    }

    SidecarStore sidecars() {
        return sidecars;
    }

    /** Recovery sidecars pending on this graph (empty in steady state), oldest first. */
    public Flux<Sidecar> pendingSidecars() {
        return sidecars.list();
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
        if (tenure != null) {
            tenure.close();
        }
    }

    /** As {@link #close()}, completing once this handle's share of the writer tenure is given back. */
    public Mono<Void> closeAsync() {
        return tenure == null ? Mono.empty() : tenure.release();
    }
}
