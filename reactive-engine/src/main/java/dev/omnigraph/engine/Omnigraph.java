package dev.omnigraph.engine;

import dev.omnigraph.engine.branch.BranchControl;
import dev.omnigraph.engine.branch.BranchResult;

import dev.omnigraph.engine.diff.ChangeLimits;
import dev.omnigraph.engine.diff.Changes;
import dev.omnigraph.engine.gate.Gates;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.load.Loader;
import dev.omnigraph.engine.load.NdjsonReader;
import dev.omnigraph.engine.mutation.MutationWriter;
import dev.omnigraph.engine.query.BoundParams;
import dev.omnigraph.engine.query.CompiledQuery;
import dev.omnigraph.engine.query.MutationPlan;
import dev.omnigraph.engine.query.QueryCompiler;
import dev.omnigraph.engine.query.ReadPlan;
import dev.omnigraph.engine.read.GraphExporter;
import dev.omnigraph.engine.read.QueryExecutor;
import dev.omnigraph.engine.read.QueryLimits;
import dev.omnigraph.engine.read.QueryResult;
import dev.omnigraph.engine.schema.Catalog;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import dev.omnigraph.engine.write.IdempotencyIndex;
import dev.omnigraph.engine.write.IdempotencySettings;
import dev.omnigraph.engine.write.RecoveryCoordinator;
import dev.omnigraph.engine.maintain.OptimizeResult;
import dev.omnigraph.engine.maintain.Optimizer;
import dev.omnigraph.engine.maintain.Repair;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.recovery.RecoveryAudit;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.engine.write.WriteLimits;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.recovery.SidecarStore;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.WriterFence;
import dev.omnigraph.storage.lease.LeaseSettings;
import dev.omnigraph.storage.lease.WriterTenure;
import dev.omnigraph.storage.manifest.ManifestFence;
import java.nio.ByteBuffer;
import reactor.core.scheduler.Schedulers;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.SchemaCompiler;
import dev.omnigraph.engine.schema.SchemaIr;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.ValidText;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.LeaseLost;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestBatchPublisher;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.ManifestStore;
import dev.omnigraph.storage.manifest.TableEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.omnigraph.storage.root.GraphRoot;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
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
    /** The accepted schema; replaced when this handle applies a schema change. */
    private volatile SchemaFiles.Accepted schema;
    /** The main manifest version {@link #schema} is known current at (see {@link LiveSchemas}). */
    private volatile long schemaVersion;
    private final Failpoints failpoints = Failpoints.fromEnvironment();
    /** BM25 corpus statistics per table version, shared by this graph's queries. */
    private final dev.omnigraph.engine.read.search.CorpusCache corpusStats = new dev.omnigraph.engine.read.search.CorpusCache();
    private final SidecarStore sidecars;
    private volatile WriteLimits limits = WriteLimits.DEFAULT;
    private volatile QueryLimits queryLimits = QueryLimits.DEFAULT;
    /** This handle's share of the root's writer tenure (OS lock or lease); null on a read-only handle. */
    private final WriterTenure tenure;
    /** Set on a follower (read-only because another process holds the root): that process, for write refusals. */
    private volatile String writerElsewhere;
    private volatile IdempotencySettings idempotency = IdempotencySettings.fromEnvironment();

    private Omnigraph(GraphRoot root, OpenMode mode, StorageServices services, ObjectStore files, ManifestStore manifest,
                      SchemaFiles.Accepted schema, WriterTenure tenure) {
        this.root = root;
        this.tenure = tenure;
        this.mode = mode;
        this.services = services;
        this.files = files;
        this.manifest = manifest;
        this.publisher = new ManifestBatchPublisher(manifest, tenure == null ? WriterFence.NONE : tenure);
        this.schema = schema;
        // A read-write handle holds the writer tenure, so it may answer sidecar listings from the shared view.
        this.sidecars = tenure == null ? new SidecarStore(files, failpoints)
                : SidecarStore.shared(root.uri(), files, failpoints);
    }

    // ---- init ----------------------------------------------------------------------------------------------

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
        return Mono.defer(() -> {
            // Compile before any I/O: a bad schema changes nothing on disk.
            SchemaFiles.Accepted accepted = SchemaFiles.Accepted.compile(schemaSource,
                    SchemaIr.initial(SchemaCompiler.compile(schemaSource), Ulid.next()));
            return RootAccess.forInit(services, root).flatMap(made -> {
                GraphRoot canonical = made.root();
                ObjectStore files = services.objectStore(canonical);
                ManifestStore manifest = new ManifestStore(canonical.uri(), services.tables());
                // The writer tenure is taken once the graph exists: a failed init leaves no lock file behind.
                return new GraphInit(services, canonical, made.created(), accepted, failpoints, files, manifest).run()
                        .then(RootAccess.tenure(services, canonical, files, lease))
                        .flatMap(held -> ManifestFence.establish(manifest, held)
                                .onErrorResume(failure -> held.release().then(Mono.error(failure)))
                                .thenReturn(new Omnigraph(canonical, OpenMode.READ_WRITE, services, files, manifest,
                                        accepted, held).labelSchema(0)));
            });
        });
    }

    // ---- open ----------------------------------------------------------------------------------------------

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
        return RootAccess.forOpen(services, root, mode).flatMap(prepared -> {
            GraphRoot canonical = prepared.root();
            ObjectStore files = services.objectStore(canonical);
            if (mode != OpenMode.READ_WRITE) {
                return open(services, canonical, mode, files, null);
            }
            Mono<WriterTenure> tenure = RootAccess.tenure(services, canonical, files, lease);
            if (!follow) {
                return tenure.flatMap(held -> open(services, canonical, mode, files, held));
            }
            // Only a refusal of the tenure itself makes a follower: every other conflict is the open's own.
            return tenure.<Object>map(held -> held)
                    .onErrorResume(Conflict.class, refused -> Mono.just(refused))
                    .flatMap(taken -> taken instanceof WriterTenure held ? open(services, canonical, mode, files, held)
                            : open(services, canonical, OpenMode.READ_ONLY, files, null)
                                    .doOnNext(graph -> graph.writerElsewhere = ((Conflict) taken).getMessage()));
        });
    }

    /** The open itself, once a read-write open holds the root ({@code tenure}; null when read-only). */
    private static Mono<Omnigraph> open(StorageServices services, GraphRoot canonical, OpenMode mode, ObjectStore files,
                                        WriterTenure tenure) {
        ManifestStore manifest = new ManifestStore(canonical.uri(), services.tables());
        // A read-write open first finishes or undoes an interrupted schema apply: until then the contract
        // files and the manifest may disagree.
        Mono<Void> schemaRecovery = mode == OpenMode.READ_WRITE
                ? manifest.load(GraphBranches.MAIN).onErrorResume(NotFound.class, missing -> Mono.empty())
                        .flatMap(found -> SchemaEvolution.recover(services, canonical.uri(), files, manifest, tenure))
                : Mono.empty();
        // A lease holder fences the manifest before anything publishes or rolls back (the sweep included).
        Mono<Void> fenced = tenure == null ? Mono.empty() : ManifestFence.establish(manifest, tenure);
        Mono<Omnigraph> opened = fenced.then(schemaRecovery).then(manifest.load(GraphBranches.MAIN))
                .onErrorResume(NotFound.class, missing -> explainMissingManifest(files, canonical, missing))
                .flatMap(state -> SchemaFiles.read(files).map(accepted -> {
                    requireRegistrationsMatch(canonical, accepted.catalog(), state);
                    return new Omnigraph(canonical, mode, services, files, manifest, accepted, tenure)
                            .labelSchema(state.manifestVersion());
                }).onErrorResume(StorageFault.class, mismatch -> SchemaEvolution.explainInterrupted(files, mismatch)))
                // A read-write open resolves every pending sidecar before anything else may write.
                .flatMap(graph -> mode == OpenMode.READ_WRITE
                        ? new RecoveryCoordinator(graph.writeContext()).sweep().thenReturn(graph)
                        : Mono.just(graph));
        if (tenure == null) {
            return opened;
        }
        // A failed or abandoned open gives its share of the tenure back.
        return opened.onErrorResume(failure -> tenure.release().then(Mono.error(failure)))
                .doOnCancel(() -> tenure.release().subscribe());
    }

    /** A root without a manifest is either not a graph or the remains of an interrupted init. */
    private static Mono<ManifestState> explainMissingManifest(ObjectStore files, GraphRoot root, NotFound missing) {
        return Mono.zip(files.exists(INIT_CLAIM), files.exists(SchemaFiles.SOURCE)).flatMap(found -> {
            if (found.getT1() || found.getT2()) {
                return Mono.error(new Conflict("the graph at " + root + " is half-initialised (an init was interrupted"
                        + " before its manifest was written); remove the directory and run init again"));
            }
            return Mono.error(new NotFound("graph", root.uri(), "no graph at " + root + "; run init first"));
        });
    }

    private static void requireRegistrationsMatch(GraphRoot root, Catalog catalog, ManifestState state) {
        Set<String> registered = new HashSet<>();
        for (TableEntry entry : state.liveTables()) {
            registered.add(entry.tableKey());
            CatalogTable table = catalog.table(entry.tableKey()).orElseThrow(() -> new StorageFault("the manifest at "
                    + root + " registers " + entry.tableKey() + ", which the accepted schema does not declare", null));
            if (table.typeId() != entry.stableTableId() || table.incarnationId() != entry.incarnationId()
                    || !table.datasetPath().equals(entry.location())) {
                throw new StorageFault("the manifest at " + root + " binds " + entry.tableKey() + " to "
                        + entry.location() + " but the schema identity gives " + table.datasetPath(), null);
            }
        }
        for (CatalogTable table : catalog.tables()) {
            if (!registered.contains(table.tableKey())) {
                throw new StorageFault("the schema at " + root + " declares " + table.tableKey()
                        + " but the manifest has no table for it", null);
            }
        }
    }

    // ---- schema refresh ------------------------------------------------------------------------------------

    /** Records this handle's schema as current at main manifest version {@code mainVersion}; adopts a newer one. */
    private Omnigraph labelSchema(long mainVersion) {
        LiveSchemas.Labeled mine = new LiveSchemas.Labeled(mainVersion, schema);
        synchronized (this) {
            schemaVersion = mainVersion;
        }
        adoptIfNewer(LiveSchemas.offer(root.uri(), mine));
        return this;
    }

    /**
     * Brings this handle's schema up to date before a read or write: a schema another handle of this process
     * applied is taken from {@link LiveSchemas} (no storage call). A read-only handle also compares the contract's
     * state file, since another process may hold the writer lock and apply a schema; a read-write handle holds the
     * lock, so no other process can. A contract caught half-promoted keeps the schema this handle had.
     */
    private Mono<Void> refreshed() {
        return Mono.defer(() -> {
            LiveSchemas.newest(root.uri()).ifPresent(this::adoptIfNewer);
            if (mode == OpenMode.READ_WRITE) {
                return Mono.empty();
            }
            SchemaFiles.Accepted mine = schema;
            return files.get(SchemaFiles.STATE).flatMap(bytes -> bytes.isPresent() && SchemaFiles.describes(bytes.get(), mine)
                    ? Mono.<Void>empty()
                    : manifest.latest(GraphBranches.MAIN).zipWith(SchemaFiles.read(files))
                            .doOnNext(read -> adoptIfNewer(LiveSchemas.offer(root.uri(),
                                    new LiveSchemas.Labeled(read.getT1().version(), read.getT2()))))
                            .onErrorResume(StorageFault.class, halfPromoted -> Mono.empty())
                            .then());
        });
    }

    private synchronized void adoptIfNewer(LiveSchemas.Labeled newest) {
        if (newest.mainVersion() > schemaVersion && LiveSchemas.sameGraph(newest, new LiveSchemas.Labeled(schemaVersion, schema))) {
            schema = newest.accepted();
            schemaVersion = newest.mainVersion();
        }
    }

    // ---- reads ---------------------------------------------------------------------------------------------

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
        return schema.catalog();
    }

    /** The accepted {@code .pg} source of the graph's schema. */
    public String schemaSource() {
        return schema.source();
    }

    /** Resolves a read target to one pinned manifest state (and the commit it stands for). */
    public Mono<GraphSnapshot> snapshot(ReadTarget target) {
        return Mono.defer(() -> {
            requireValidText(target);
            return snapshotOf(target);
        });
    }

    /** Branch names and commit ids are refused as a BadRequest naming them when they are not valid text. */
    private static void requireValidText(ReadTarget target) {
        if (target instanceof ReadTarget.Commit commit) ValidText.require("commit id", commit.commitId());
        else ValidText.require("branch", ((ReadTarget.Branch) target).name());
    }

    private static void requireValidText(String branch, Optional<String> actorId, Optional<String> ifGraphCommit) {
        ValidText.require("branch", branch);
        actorId.ifPresent(actor -> ValidText.require("actor id", actor));
        ifGraphCommit.ifPresent(commit -> ValidText.require("expected graph commit id", commit));
    }

    private Mono<GraphSnapshot> snapshotOf(ReadTarget target) {
        if (target instanceof ReadTarget.Commit commit) {
            return manifest.commit(commit.commitId()).flatMap(found ->
                    manifest.loadAt(found.branchName(), found.manifestVersion())
                            .map(state -> toSnapshot(state, Optional.of(found.id()))));
        }
        String branch = ((ReadTarget.Branch) target).name();
        // One manifest load: the effective head is the branch's own head, or the one it inherited at its fork.
        return manifest.load(branch).zipWith(manifest.branchIdentity(branch), (state, identity) -> toSnapshot(state,
                state.head().or(() -> Optional.ofNullable(state.heads().get(identity.parent().orElse(GraphBranches.MAIN))))));
    }

    private GraphSnapshot toSnapshot(ManifestState state, Optional<String> commitId) {
        List<TableInfo> tables = new ArrayList<>();
        for (TableEntry entry : state.liveTables()) {
            String kind = entry.tableKey().substring(0, entry.tableKey().indexOf(':'));
            String typeName = entry.tableKey().substring(entry.tableKey().indexOf(':') + 1);
            tables.add(new TableInfo(entry.tableKey(), typeName, kind, entry.location(), entry.version(),
                    entry.lanceBranch(), entry.rowCount()));
        }
        return new GraphSnapshot(state.branch(), state.manifestVersion(), commitId, List.copyOf(tables), state);
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
        return refreshed().then(Mono.defer(() -> {
            Catalog live = catalog();
            // A head read fails fast on a bad query; time travel compiles against the schema of its commit.
            Optional<CompiledQuery> early = target instanceof ReadTarget.Branch
                    ? Optional.of(compileRead(source, queryName, live)) : Optional.empty();
            Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
            return snapshot(target).flatMap(snapshot -> catalogOf(target, snapshot, live).map(catalog -> {
                CompiledQuery compiled = early.filter(q -> catalog == live)
                        .orElseGet(() -> compileRead(source, queryName, catalog));
                ReadPlan plan = (ReadPlan) compiled;
                BoundParams bound = compiled.bind(params);
                QueryResult result = new QueryExecutor(services.tables(), root.uri(), catalog, failpoints, corpusStats)
                        .execute(plan, bound, snapshot.manifest(), now, limits);
                List<QueryOutput.Column> columns = result.columns().stream()
                        .map(column -> new QueryOutput.Column(column.name(), column.type())).toList();
                return new QueryOutput(queryName, snapshot.graphCommitId(), columns, result.rows());
            }));
        }));
    }

    private static CompiledQuery compileRead(String source, String queryName, Catalog catalog) {
        CompiledQuery compiled = QueryCompiler.compile(source, queryName, catalog);
        if (!(compiled instanceof ReadPlan)) {
            throw new BadRequest("query '" + queryName + "' is a mutation; run it with mutate(), not query()");
        }
        return compiled;
    }

    /** The catalog a snapshot was written under: the live one, or for a commit of main the one of its time. */
    private Mono<Catalog> catalogOf(ReadTarget target, GraphSnapshot snapshot, Catalog live) {
        if (target instanceof ReadTarget.Branch || !snapshot.branch().equals(GraphBranches.MAIN)) {
            return Mono.just(live);
        }
        return dev.omnigraph.engine.evolve.SchemaHistory.catalogAt(files, manifest, snapshot.manifestVersion(), live);
    }

    /** The graph at {@code target} as NDJSON lines in the load format (nodes first, then edges). */
    public Flux<String> export(ReadTarget target, Set<String> typeNames) {
        return refreshed().then(snapshot(target)).flatMapMany(snapshot ->
                new GraphExporter(services.tables(), root.uri(), catalog()).export(snapshot.manifest(), typeNames));
    }

    /**
     * The bytes of Blob property {@code property} of entity {@code id} of {@code typeName} at {@code target}.
     * {@code NotFound} when the entity does not exist there or the value is NULL; {@code BadRequest} for an unknown
     * type or a property that is not a Blob.
     */
    public Mono<byte[]> blob(ReadTarget target, String typeName, String id, String property) {
        return refreshed().then(snapshot(target)).flatMap(snapshot ->
                new dev.omnigraph.engine.read.BlobReader(services.tables(), root.uri(), catalog())
                        .read(snapshot.manifest(), typeName, id, property));
    }

    /** Commits visible on {@code branch}, newest first (a branch also shows the history it forked from). */
    public Flux<GraphCommit> commits(String branch) {
        return Flux.defer(() -> {
            ValidText.require("branch", branch);
            return manifest.commits(branch);
        });
    }

    /** Commit {@code commitId}; {@code NotFound} when the graph has no such commit. */
    public Mono<GraphCommit> commit(String commitId) {
        return Mono.defer(() -> {
            ValidText.require("commit id", commitId);
            return manifest.commit(commitId);
        });
    }

    /** Commit diffs, the change feed and the row-delta engine, over this handle's storage and schema. */
    public Changes changes() {
        return changes(ChangeLimits.DEFAULT);
    }

    /** {@link #changes()} with other page bounds. */
    public Changes changes(ChangeLimits limits) {
        return new Changes(manifest, services.tables(), catalog(), branch -> snapshot(ReadTarget.branch(branch))
                .map(s -> new Changes.BranchHead(s.manifest(), s.graphCommitId())), limits);
    }

    /** Graph branches with their identities, main first. */
    public Mono<List<BranchIdentity>> branches() {
        return manifest.branches();
    }

    /**
     * Creates branch {@code name} from {@code from} (a branch or a commit id; main when empty). Lazy: no table is
     * copied; the branch reads every table through the pins it inherited until its first write to that table.
     */
    public Mono<BranchResult.Created> createBranch(String name, Optional<String> from) {
        return Mono.defer(() -> {
            requireWritable("branch create");
            return new BranchControl(writeContext()).create(name, from);
        });
    }

    /** Deletes branch {@code name} (never main, never a branch others still fork from). */
    public Mono<BranchResult.Deleted> deleteBranch(String name) {
        return Mono.defer(() -> {
            requireWritable("branch delete");
            return new BranchControl(writeContext()).delete(name);
        });
    }

    /**
     * Merges the current head of branch {@code source} into {@code target} as one commit (three-way, entity by
     * entity; see {@code engine.merge}). With {@code deleteSource}, a successful merge then deletes the source; a
     * refused delete is reported in the result, never as a failure of the merge.
     */
    public Mono<dev.omnigraph.engine.merge.MergeResult> mergeBranch(String source, String target, boolean deleteSource,
                                                                   Optional<String> actorId) {
        return Mono.defer(() -> {
            requireValidText(source, actorId, Optional.empty());
            requireValidText(target, Optional.empty(), Optional.empty());
            requireWritable("branch merge");
            dev.omnigraph.engine.merge.BranchMerge merge = new dev.omnigraph.engine.merge.BranchMerge(writeContext());
            return deleteSource ? merge.mergeThenDelete(source, target, actorId, this::deleteBranch)
                    : merge.merge(source, target, actorId);
        });
    }

    /**
     * For {@code load --from}: creates {@code branch} from {@code from} unless it exists; emits whether it did.
     * Without {@code from} the branch must already exist.
     */
    public Mono<Boolean> ensureBranch(String branch, Optional<String> from) {
        if (from.isEmpty() || GraphBranches.MAIN.equals(branch)) {
            return Mono.just(false);
        }
        return Mono.defer(() -> {
            ValidText.require("branch", branch);
            return manifest.branches().flatMap(live -> live.stream().anyMatch(b -> b.name().equals(branch))
                    ? Mono.just(false)
                    : createBranch(branch, from).thenReturn(true)
                            // Lost a race with another creator of the same name: it exists now, which is all we need.
                            .onErrorResume(Conflict.class, exists -> manifest.branchIdentity(branch)
                                    .thenReturn(false)));
        });
    }

    // ---- writes --------------------------------------------------------------------------------------------

    /**
     * Runs mutation {@code queryName} of {@code source} on {@code branch} as one atomic commit. The query is
     * compiled and its params bound before any I/O; the result carries the commit (empty when nothing changed).
     */
    public Mono<WriteOutcome> mutate(String branch, String source, String queryName, Map<String, Object> params,
                                     WriteOptions options) {
        return refreshed().then(Mono.defer(() -> {
            requireValidText(branch, options.actorId(), options.ifGraphCommit());
            requireWritable("mutation");
            Optional<String> key = options.idempotencyKey().map(IdempotencyKeys::valid);
            CompiledQuery compiled = QueryCompiler.compile(source, queryName, catalog());
            if (!(compiled instanceof MutationPlan plan)) {
                throw new BadRequest("query '" + queryName + "' is a read query; run it with query(), not mutate()");
            }
            BoundParams bound = compiled.bind(params);
            Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
            return new MutationWriter(writeContext()).execute(branch, plan, bound, now, options.actorId(),
                    options.ifGraphCommit(), key.map(k -> IdempotencyKeys.mutation(k, branch, source, queryName,
                            bound, options.ifGraphCommit())));
        }));
    }

    /** Loads NDJSON bytes (streamed, never buffered whole) into {@code branch} as one commit. */
    public Mono<WriteOutcome> load(String branch, LoadMode mode, Flux<ByteBuffer> ndjson, LoadOptions options) {
        return refreshed().then(Mono.defer(() -> {
            requireValidText(branch, options.actorId(), options.ifGraphCommit());
            requireWritable("load");
            Optional<IdempotencyKeys.LoadHash> hash = IdempotencyKeys.load(branch, mode, options);
            NdjsonReader reader = new NdjsonReader(catalog());
            Flux<ByteBuffer> input = hash.map(h -> ndjson.doOnNext(h::update)).orElse(ndjson);
            return new Loader(writeContext()).load(branch, mode, reader.read(input, Schedulers.parallel()),
                    options.overwriteTypes(), options.actorId(), options.ifGraphCommit(),
                    hash.map(h -> h::request));
        }));
    }

    /** Loads an NDJSON file (read on the storage scheduler) into {@code branch} as one commit. */
    public Mono<WriteOutcome> load(String branch, LoadMode mode, Path ndjsonFile, LoadOptions options) {
        return refreshed().then(Mono.defer(() -> {
            requireValidText(branch, options.actorId(), options.ifGraphCommit());
            requireWritable("load");
            Optional<IdempotencyKeys.LoadHash> hash = IdempotencyKeys.load(branch, mode, options);
            NdjsonReader reader = new NdjsonReader(catalog());
            Flux<dev.omnigraph.engine.load.LoadRecord> records = reader.read(ndjsonFile,
                    services.scheduler().scheduler(), chunk -> hash.ifPresent(h -> h.update(chunk)));
            return new Loader(writeContext()).load(branch, mode, records, options.overwriteTypes(), options.actorId(),
                    options.ifGraphCommit(), hash.map(h -> h::request));
        }));
    }

    /**
     * Builds, on every table of {@code branch}, the indexes its schema implies that it lacks (EnsureIndices: one
     * commit, or none when nothing is missing). On a graph branch, tables it still inherits are forked first.
     */
    public Mono<dev.omnigraph.engine.index.EnsureResult> ensureIndexes(String branch, Optional<String> actorId) {
        return Mono.defer(() -> {
            requireValidText(branch, actorId, Optional.empty());
            requireWritable("index ensure");
            return new dev.omnigraph.engine.index.IndexEnsurer(writeContext()).ensure(branch, actorId);
        });
    }

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
        return Mono.defer(() -> {
            if (force && !confirm) {
                throw new dev.omnigraph.storage.error.BadRequest("repair --force needs --confirm");
            }
            if (confirm) {
                requireWritable("repair --confirm");
            }
            return new Repair(writeContext()).run(confirm, force);
        });
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
        return Mono.defer(() -> {
            requireWritable("optimize");
            actor.ifPresent(id -> ValidText.require("actor id", id));
            return new Optimizer(writeContext()).run(branch, actor);
        });
    }

    /**
     * Version GC (see {@link dev.omnigraph.engine.cleanup.Cleanup} for the retention rule); unconfirmed it only
     * reports what would go. Deleting needs a read-write handle.
     */
    public Mono<dev.omnigraph.engine.cleanup.CleanupReport> cleanup(dev.omnigraph.engine.cleanup.CleanupOptions options) {
        return Mono.defer(() -> {
            // Version GC walks the dataset directories (file times, listings): local roots only, refused before any effect.
            if (root instanceof GraphRoot.S3) {
                throw new BadRequest("cleanup: version cleanup supports graph roots on the local filesystem only, not "
                        + root.displayUri());
            }
            if (options.confirm()) {
                requireWritable("cleanup --confirm");
            }
            return new dev.omnigraph.engine.cleanup.Cleanup(writeContext()).run(options);
        });
    }

    /** The failpoints of this handle (armed from the environment; tests arm more). */
    public Failpoints failpoints() {
        return failpoints;
    }

    /** Per-commit input limits of this handle's writes. */
    public WriteLimits limits() {
        return limits;
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

    /** The plan from the accepted schema to {@code source}, against main's current data; changes nothing. */
    public Mono<dev.omnigraph.engine.evolve.SchemaPlan> planSchema(String source) {
        return refreshed().then(Mono.defer(() -> SchemaEvolution.applier(writeContext(), files, schema).plan(source)));
    }

    /**
     * Applies {@code source} as the graph's schema (see {@link dev.omnigraph.engine.evolve.SchemaApplier});
     * afterwards this handle reads, writes and compiles queries against the new schema.
     */
    public Mono<dev.omnigraph.engine.evolve.SchemaApplyResult> applySchema(String source, boolean allowDataLoss,
                                                                          Optional<String> actorId) {
        return refreshed().then(Mono.defer(() -> {
            requireWritable("schema apply");
            return SchemaEvolution.applier(writeContext(), files, schema).apply(source, allowDataLoss, actorId)
                    .flatMap(result -> result.applied()
                            ? SchemaFiles.read(files).doOnNext(live -> {
                                synchronized (this) {
                                    this.schema = live;
                                }
                                labelSchema(result.commit().orElseThrow().manifestVersion());
                            }).thenReturn(result)
                            : Mono.just(result));
        }));
    }

    WriteContext writeContext() {
        return new WriteContext(root.uri(), catalog(), schema.state().schemaIrHash(),
                schema.state().schemaIdentityDomain(), services.tables(), manifest, publisher, sidecars, gates(),
                failpoints, limits, idempotency);
    }

    SidecarStore sidecars() {
        return sidecars;
    }

    /** Recovery sidecars pending on this graph (empty in steady state), oldest first. */
    public Flux<Sidecar> pendingSidecars() {
        return sidecars.list();
    }

    // ---- internals shared with writers ---------------------------------------------------------------------

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
        return schema.catalog().node(typeName);
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
