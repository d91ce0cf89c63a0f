package dev.omnigraph.engine;

import dev.omnigraph.engine.diff.ChangeLimits;
import dev.omnigraph.engine.diff.Changes;
import dev.omnigraph.engine.evolve.SchemaHistory;
import dev.omnigraph.engine.query.BoundParams;
import dev.omnigraph.engine.query.CompiledQuery;
import dev.omnigraph.engine.query.QueryCache;
import dev.omnigraph.engine.query.ReadPlan;
import dev.omnigraph.engine.read.BlobReader;
import dev.omnigraph.storage.BlobRead;
import dev.omnigraph.storage.BlobWindow;
import dev.omnigraph.engine.read.GraphExporter;
import dev.omnigraph.engine.read.QueryExecutor;
import dev.omnigraph.engine.read.QueryLimits;
import dev.omnigraph.engine.read.QueryResult;
import dev.omnigraph.engine.read.search.CorpusCache;
import dev.omnigraph.engine.read.PinnedRead;
import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.PinnedCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.ValidText;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.ManifestStore;
import dev.omnigraph.storage.manifest.TableEntry;
import dev.omnigraph.storage.root.GraphRoot;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The read side of an {@link Omnigraph} handle: snapshots of a read target, read queries, export, blobs, commits
 * and the change feed, each against the handle's current schema (or, for time travel on main, the one of its time).
 */
final class GraphReads {
    private final GraphRoot root;
    private final StorageServices services;
    private final ObjectStore files;
    private final ManifestStore manifest;
    private final HandleSchema schema;
    private final Failpoints failpoints;
    /** BM25 corpus statistics per table version, shared by this graph's queries. */
    private final CorpusCache corpusStats = new CorpusCache();

    GraphReads(GraphRoot root, StorageServices services, ObjectStore files, ManifestStore manifest, HandleSchema schema,
               Failpoints failpoints) {
        this.root = root;
        this.services = services;
        this.files = files;
        this.manifest = manifest;
        this.schema = schema;
        this.failpoints = failpoints;
    }

    Mono<GraphSnapshot> snapshot(ReadTarget target) {
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

    Mono<QueryOutput> query(ReadTarget target, String source, String queryName, Map<String, Object> params,
                            QueryLimits limits) {
        // A head read that met a snapshot of a schema this handle did not know yet (an apply landed meanwhile)
        // brings its schema up to date and reads once more.
        return attempt(target, source, queryName, params, limits)
                .onErrorResume(RecoveryRequired.class, unbound -> target instanceof ReadTarget.Branch
                                && SCHEMA_BINDING.equals(unbound.operationId())
                        ? attempt(target, source, queryName, params, limits) : Mono.error(unbound));
    }

    private Mono<QueryOutput> attempt(ReadTarget target, String source, String queryName, Map<String, Object> params,
                                      QueryLimits limits) {
        return schema.refreshed().then(Mono.defer(() -> {
            Catalog live = schema.current().catalog();
            // A head read fails fast on a bad query; time travel compiles against the schema of its commit.
            Optional<CompiledQuery> early = target instanceof ReadTarget.Branch
                    ? Optional.of(compileRead(source, queryName, live)) : Optional.empty();
            Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
            return snapshot(target).flatMap(snapshot -> catalogOf(target, snapshot, live).map(catalog -> {
                // Pinned to a commit of another schema: today's names resolve by identity (a renamed type answers
                // to its new name too); a name dropped and re-created since is refused rather than misread.
                Catalog resolving = catalog == live ? live : PinnedCatalog.of(catalog, live);
                CompiledQuery compiled = early.filter(q -> catalog == live)
                        .orElseGet(() -> compileRead(source, queryName, resolving));
                ReadPlan plan = (ReadPlan) compiled;
                if (catalog != live) {
                    PinnedRead.requireSameTypes(plan, catalog, live, snapshot.graphCommitId().orElse("?"));
                }
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
        CompiledQuery compiled = QueryCache.compileRead(source, queryName, catalog);
        if (!(compiled instanceof ReadPlan)) {
            throw new BadRequest("query '" + queryName + "' is a mutation; run it with mutate(), not query()");
        }
        return compiled;
    }

    /** The catalog a snapshot was written under: the live one, or for a commit of main the one of its time. */
    private Mono<Catalog> catalogOf(ReadTarget target, GraphSnapshot snapshot, Catalog live) {
        Mono<Catalog> chosen = target instanceof ReadTarget.Branch || !snapshot.branch().equals(GraphBranches.MAIN)
                ? Mono.just(live) : SchemaHistory.catalogAt(files, manifest, snapshot.manifestVersion(), live);
        return chosen.flatMap(catalog -> boundTo(snapshot, catalog));
    }

    /** The operation id of a read refused for reading a snapshot with another schema than it was published under. */
    static final String SCHEMA_BINDING = "schema_binding";

    /**
     * A snapshot is read only with the catalog of the schema it was published under: the identity its manifest
     * stamp records (none on roots stamped before it was recorded). Anything else (another process applied a
     * schema whose contract this handle cannot load yet) is refused rather than read with the wrong types.
     */
    private static Mono<Catalog> boundTo(GraphSnapshot snapshot, Catalog catalog) {
        Optional<String> stamped = snapshot.manifest().schemaIdentity();
        if (stamped.isEmpty() || stamped.get().equals(catalog.irHash())) {
            return Mono.just(catalog);
        }
        return Mono.error(new RecoveryRequired(SCHEMA_BINDING, "the snapshot at manifest version "
                + snapshot.manifestVersion() + " was published under schema " + stamped.get()
                + ", which this handle does not have (it has " + catalog.irHash()
                + "); an interrupted schema apply must finish first", null));
    }

    /** Bound like a query: the catalog of the schema the snapshot was published under, or refused. */
    Flux<String> export(ReadTarget target, Set<String> typeNames) {
        return schema.refreshed().then(snapshot(target)).flatMapMany(snapshot ->
                catalogOf(target, snapshot, schema.current().catalog()).flatMapMany(catalog ->
                        new GraphExporter(services.tables(), root.uri(), catalog).export(snapshot.manifest(), typeNames)));
    }

    Mono<BlobRead.Slice> blob(ReadTarget target, String typeName, String id, String property, BlobWindow window) {
        return schema.refreshed().then(snapshot(target)).flatMap(snapshot ->
                catalogOf(target, snapshot, schema.current().catalog()).flatMap(catalog ->
                        new BlobReader(services.tables(), root.uri(), catalog)
                                .read(snapshot.manifest(), typeName, id, property, window)));
    }

    Flux<GraphCommit> commits(String branch) {
        return Flux.defer(() -> {
            ValidText.require("branch", branch);
            return manifest.commits(branch);
        });
    }

    Mono<GraphCommit> commit(String commitId) {
        return Mono.defer(() -> {
            ValidText.require("commit id", commitId);
            return manifest.commit(commitId);
        });
    }

    Changes changes(ChangeLimits limits) {
        return new Changes(manifest, services.tables(), schema.current().catalog(),
                branch -> snapshot(ReadTarget.branch(branch))
                        .map(s -> new Changes.BranchHead(s.manifest(), s.graphCommitId())), limits);
    }
}
