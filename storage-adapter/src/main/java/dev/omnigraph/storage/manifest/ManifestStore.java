package dev.omnigraph.storage.manifest;

import static dev.omnigraph.storage.manifest.ManifestSchema.*;

import dev.omnigraph.storage.CommittedVersion;
import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.SqlLiterals;
import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.error.UnsupportedStamp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Reads and creates the {@code __manifest} dataset of one graph root: snapshot reconstruction at a branch head or
 * an exact manifest version, commit lineage, and graph-branch identities. Writes after creation go only through
 * {@link ManifestBatchPublisher}.
 */
public final class ManifestStore {
    private static final Comparator<GraphCommit> NEWEST_FIRST = Comparator
            .comparingLong(GraphCommit::manifestVersion)
            .thenComparingLong(GraphCommit::createdAtMicros)
            .thenComparing(GraphCommit::id)
            .reversed();

    /**
     * The rows a state is built from: every row but commits, only the columns a state reads, with their addresses
     * (a publish rewrites some of these rows in place and deletes them by address).
     */
    private static final ScanRequest STATE_ROWS = ScanRequest.where(SqlLiterals.ne(OBJECT_TYPE, TYPE_COMMIT))
            .withColumns(List.of(OBJECT_ID, OBJECT_TYPE, TABLE_KEY, LOCATION, STABLE_TABLE_ID, TABLE_INCARNATION_ID,
                    TABLE_VERSION, TABLE_BRANCH, ROW_COUNT, TOMBSTONE, METADATA))
            .includingRowAddress();
    private static final String ROW_ADDRESS = "_rowaddr";
    /** The columns a commit row is decoded from. */
    private static final List<String> COMMIT_COLUMNS = List.of(OBJECT_ID, TABLE_VERSION, TABLE_BRANCH, METADATA);

    private final String root;
    private final String manifestPath;
    private final TableStorage tables;
    private final ManifestCache cache = new ManifestCache();

    public ManifestStore(String root, TableStorage tables) {
        this.root = root;
        this.manifestPath = root + "/" + DIRECTORY;
        this.tables = tables;
    }

    public String root() {
        return root;
    }

    public String manifestPath() {
        return manifestPath;
    }

    TableStorage tables() {
        return tables;
    }

    public TableRef ref(String graphBranch) {
        return new TableRef(manifestPath, GraphBranches.lanceRef(graphBranch));
    }

    /**
     * Creates {@code __manifest} holding the stamp, {@code initialTables}, the genesis commit and
     * {@code graph_head:main}. The rows land in one commit, so a manifest either has its stamp or is empty.
     */
    public Mono<GraphCommit> create(List<TableEntry> initialTables, String genesisCommitId, long createdAtMicros) {
        return create(SCHEMA, initialTables, genesisCommitId, createdAtMicros, Optional.empty());
    }

    /** As above, the stamp recording {@code schemaIdentity} (the accepted schema IR hash) as the graph's schema. */
    public Mono<GraphCommit> create(List<TableEntry> initialTables, String genesisCommitId, long createdAtMicros,
                                    String schemaIdentity) {
        return create(SCHEMA, initialTables, genesisCommitId, createdAtMicros, Optional.of(schemaIdentity));
    }

    /** As above with an explicit schema: tests build a manifest as older builds did (no column encodings). */
    Mono<GraphCommit> create(Schema schema, List<TableEntry> initialTables,
            String genesisCommitId, long createdAtMicros) {
        return create(schema, initialTables, genesisCommitId, createdAtMicros, Optional.empty());
    }

    private Mono<GraphCommit> create(Schema schema, List<TableEntry> initialTables,
            String genesisCommitId, long createdAtMicros, Optional<String> schemaIdentity) {
        return tables.create(manifestPath, schema).flatMap(empty -> {
            List<TableDelta> deltas = initialTables.stream()
                    .map(entry -> new TableDelta(entry.tableKey(), 0, entry.version())).toList();
            GraphCommit genesis = new GraphCommit(genesisCommitId, List.of(), Optional.empty(), Optional.empty(),
                    createdAtMicros, "init", deltas, empty.version() + 1);
            List<Map<String, Object>> rows = new ArrayList<>();
            rows.add(ManifestRows.stamp(INTERNAL_SCHEMA_VERSION, 0, schemaIdentity));
            initialTables.forEach(entry -> rows.add(ManifestRows.table(entry)));
            rows.add(ManifestRows.head(GraphBranches.MAIN, genesisCommitId));
            rows.add(ManifestRows.commit(genesis));
            return tables.stageAppend(empty, rows, Map.of("omnigraph.commit_id", genesisCommitId))
                    .flatMap(tables::commitStaged)
                    .map(committed -> requireLanded(committed, genesis.manifestVersion(), "genesis"))
                    .thenReturn(genesis);
        });
    }

    /**
     * The state at the latest manifest version of {@code graphBranch}, stamp checked. Costs one open (the version
     * check) when this store already holds that exact version, else one open and one scan.
     */
    public Mono<ManifestState> load(String graphBranch) {
        return latest(graphBranch).flatMap(snapshot -> cache.at(graphBranch, snapshot).map(Mono::just)
                .orElseGet(() -> read(graphBranch, snapshot).doOnNext(cache::remember)));
    }

    /** The state at exactly {@code manifestVersion} of {@code graphBranch} (time travel). */
    public Mono<ManifestState> loadAt(String graphBranch, long manifestVersion) {
        return tables.open(ref(graphBranch), OptionalLong.of(manifestVersion))
                .flatMap(snapshot -> cache.at(graphBranch, snapshot).map(Mono::just)
                        .orElseGet(() -> read(graphBranch, snapshot)));
    }

    /**
     * The last state this store loaded or published for {@code graphBranch}, unchecked and with no storage call.
     * Only to plan on where a later check against the live manifest catches staleness: a publish (a stale one
     * loses its CAS or is refused and loads again), a write token (its recheck under the gates).
     */
    public Optional<ManifestState> kept(String graphBranch) {
        return cache.last(graphBranch);
    }

    /** A publish landed: {@code state} is the manifest it produced. */
    void published(ManifestState state) {
        cache.remember(state);
    }

    /**
     * {@code graphBranch} was deleted through this store: the state it kept (row addresses, tail) must never be
     * planned on by a branch created again under the name, whose version numbers start over. (Other stores on the
     * root keep theirs until their next load, which the recheck under the gates makes before any publish.)
     */
    public void forget(String graphBranch) {
        cache.drop(graphBranch);
    }

    /** Something other than a publish (a compaction) moved the manifest past {@code state}. */
    void superseded(ManifestState state) {
        cache.forget(state);
    }

    private Mono<ManifestState> read(String graphBranch, TableSnapshot snapshot) {
        return tables.scan(snapshot, STATE_ROWS)
                .flatMapIterable(RowBatch::rows)
                .collectList()
                .map(rows -> reconstruct(graphBranch, snapshot, rows));
    }

    private ManifestState reconstruct(String graphBranch, TableSnapshot snapshot, List<Map<String, Object>> rows) {
        Integer stamp = null;
        long epoch = 0;
        Optional<String> schemaIdentity = Optional.empty();
        TreeMap<String, TableEntry> byKey = new TreeMap<>();
        Map<String, String> heads = new HashMap<>();
        Map<String, Long> addresses = new HashMap<>();
        boolean addressesExact = true;
        for (Map<String, Object> row : rows) {
            // One row per object id is what merge-insert keeps; anything else is found by key at publish.
            addressesExact &= row.get(ROW_ADDRESS) instanceof Long address
                    && addresses.put((String) row.get(OBJECT_ID), address) == null;
            switch (ManifestRows.type(row)) {
                case TYPE_STAMP -> {
                    stamp = stampOf(row);
                    epoch = ManifestRows.stampEpoch(row);
                    schemaIdentity = ManifestRows.stampSchemaIdentity(row);
                }
                case TYPE_TABLE -> {
                    TableEntry entry = ManifestRows.tableEntry(row);
                    TableEntry clash = byKey.put(entry.tableKey(), entry);
                    if (clash != null && !clash.tombstone() && !entry.tombstone()) {
                        throw new StorageFault("corrupt manifest at " + manifestPath + ": two live tables claim "
                                + entry.tableKey(), null);
                    }
                    if (clash != null && !clash.tombstone()) {
                        byKey.put(entry.tableKey(), clash); // a re-created type's live row wins over the old tombstone
                    }
                }
                case TYPE_HEAD -> heads.put(ManifestRows.headBranch(row), ManifestRows.headCommitId(row));
                default -> {
                    // Row kinds this build does not know are skipped, as the format allows.
                }
            }
        }
        if (stamp == null) {
            throw new UnsupportedStamp("missing", "the manifest at " + manifestPath + " has no storage stamp: the graph"
                    + " root is half-initialised (an interrupted init?); remove " + root + " and run init again");
        }
        requireServedStamp(stamp);
        return new ManifestState(graphBranch, snapshot, java.util.Collections.unmodifiableSortedMap(byKey), Map.copyOf(heads),
                epoch, addressesExact ? addresses : Map.of(), ManifestState.Tail.NONE, schemaIdentity);
    }

    private int stampOf(Map<String, Object> row) {
        try {
            return ManifestRows.stampValue(row);
        } catch (IllegalArgumentException unreadable) {
            throw new UnsupportedStamp(unreadable.getMessage(), "the graph at " + root
                    + " carries an unreadable storage stamp '" + unreadable.getMessage() + "'; refusing to open it");
        }
    }

    void requireServedStamp(int stamp) {
        if (stamp < INTERNAL_SCHEMA_VERSION) {
            throw new UnsupportedStamp(Integer.toString(stamp), "the graph at " + root + " uses storage format " + stamp
                    + ", older than the format " + INTERNAL_SCHEMA_VERSION + " this build serves; rebuild it via export, init and load");
        }
        if (stamp > INTERNAL_SCHEMA_VERSION) {
            throw new UnsupportedStamp(Integer.toString(stamp), "the graph at " + root + " uses storage format " + stamp
                    + ", newer than the format " + INTERNAL_SCHEMA_VERSION + " this build serves; upgrade omnigraph");
        }
    }

    /** Commits visible on {@code graphBranch} (its own and those inherited at its fork), newest first. */
    public Flux<GraphCommit> commits(String graphBranch) {
        return tables.open(ref(graphBranch), OptionalLong.empty())
                .onErrorMap(NotFound.class, missing -> branchOrGraphMissing(graphBranch, missing))
                .flatMapMany(snapshot -> commitsIn(snapshot, ScanRequest.where(SqlLiterals.eq(OBJECT_TYPE, TYPE_COMMIT))))
                .sort(NEWEST_FIRST);
    }

    /** The commit with {@code commitId} if the lineage of {@code graphBranch} holds it (a fork shows its parent's). */
    public Mono<Optional<GraphCommit>> commitOn(String graphBranch, String commitId) {
        return tables.open(ref(graphBranch), OptionalLong.empty())
                .flatMapMany(snapshot -> commitsIn(snapshot, commitById(commitId)))
                .next()
                .map(Optional::of)
                .defaultIfEmpty(Optional.empty());
    }

    /** The commit with {@code commitId}, looked up on main and then on every branch. */
    public Mono<GraphCommit> commit(String commitId) {
        return Mono.fromCallable(() -> commitById(commitId)).flatMap(byId -> branches()
                .flatMapMany(identities -> Flux.fromIterable(identities).map(BranchIdentity::name))
                .concatMap(branch -> tables.open(ref(branch), OptionalLong.empty()).flatMapMany(s -> commitsIn(s, byId)), 1)
                .next()
                .switchIfEmpty(Mono.error(() -> new NotFound("commit", commitId, "no commit " + commitId + " in this graph"))));
    }

    private static ScanRequest commitById(String commitId) {
        return ScanRequest.where(SqlLiterals.allOf(List.of(SqlLiterals.eq(OBJECT_TYPE, TYPE_COMMIT),
                SqlLiterals.eq(OBJECT_ID, commitId))));
    }

    /**
     * Commits of one manifest snapshot that carry an idempotency record and were published after manifest version
     * {@code afterVersion} (0 = all). The filter is pushed down, so only keyed commit rows are decoded.
     */
    public Flux<RecordedCommit> recordedCommits(TableSnapshot snapshot, long afterVersion) {
        String filter = SqlLiterals.allOf(List.of(SqlLiterals.eq(OBJECT_TYPE, TYPE_COMMIT),
                SqlLiterals.compare(TABLE_VERSION, SqlLiterals.Comparison.GT, Long.toString(afterVersion)),
                SqlLiterals.call("contains", METADATA, SqlLiterals.quote("\"" + ManifestRows.IDEMPOTENCY + "\""))));
        return tables.scan(snapshot, ScanRequest.where(filter).withColumns(COMMIT_COLUMNS)).flatMapIterable(RowBatch::rows)
                .flatMap(row -> Mono.justOrEmpty(ManifestRows.idempotency(row)
                        .map(record -> new RecordedCommit(ManifestRows.graphCommit(row), record))));
    }

    /** The latest manifest snapshot of {@code graphBranch}. */
    public Mono<TableSnapshot> latest(String graphBranch) {
        return tables.open(ref(graphBranch), OptionalLong.empty())
                .onErrorMap(NotFound.class, missing -> branchOrGraphMissing(graphBranch, missing));
    }

    private Flux<GraphCommit> commitsIn(TableSnapshot snapshot, ScanRequest request) {
        return tables.scan(snapshot, request.withColumns(COMMIT_COLUMNS)).flatMapIterable(RowBatch::rows).map(ManifestRows::graphCommit);
    }

    /** Every graph branch with its identity, main first, then by name. */
    public Mono<List<BranchIdentity>> branches() {
        return tables.listBranches(manifestPath).map(lance -> {
            List<BranchIdentity> out = new ArrayList<>();
            out.add(BranchIdentity.MAIN);
            lance.stream().filter(branch -> !branch.name().startsWith("__")).map(BranchIdentity::of).forEach(out::add);
            return List.copyOf(out);
        });
    }

    /** The identity of one graph branch; {@code NotFound} when it does not exist. */
    public Mono<BranchIdentity> branchIdentity(String graphBranch) {
        if (GraphBranches.MAIN.equals(graphBranch)) {
            return Mono.just(BranchIdentity.MAIN);
        }
        return tables.listBranches(manifestPath).flatMap(lance -> Mono.justOrEmpty(lance.stream()
                        .filter(branch -> branch.name().equals(graphBranch)).findFirst().map(BranchIdentity::of)))
                .switchIfEmpty(Mono.error(() -> new NotFound("branch", graphBranch, "branch " + graphBranch + " does not exist")));
    }

    private NotFound branchOrGraphMissing(String graphBranch, NotFound missing) {
        return GraphBranches.MAIN.equals(graphBranch)
                ? new NotFound("graph", root, "no graph at " + root + " (no " + DIRECTORY + " dataset); run init first")
                : new NotFound("branch", graphBranch, "branch " + graphBranch + " does not exist in this graph");
    }

    static CommittedVersion requireLanded(CommittedVersion committed, long expectedVersion, String what) {
        if (committed.version() != expectedVersion) {
            throw new StorageFault(what + " manifest commit landed at version " + committed.version() + ", expected "
                    + expectedVersion + ": another process wrote the manifest concurrently", null);
        }
        return committed;
    }

    /** Stages manifest rows as one Update at the state's version (nothing visible until {@link #commitRows}). */
    Mono<StagedHandle> stageRows(ManifestState state, List<Map<String, Object>> rows, String commitId) {
        return stageRows(state, rows, commitId, Map.of());
    }

    /**
     * As {@link #stageRows(ManifestState, List, String)}, also deleting the rows at {@code tailAddresses} (the tail
     * a publish writes again; its rows are among {@code rows}) by address.
     */
    Mono<StagedHandle> stageRows(ManifestState state, List<Map<String, Object>> rows, String commitId,
                                 Map<String, Long> tailAddresses) {
        TableSnapshot manifest = state.manifest();
        Map<String, String> properties = Map.of("omnigraph.commit_id", commitId);
        if (state.rowAddresses().isEmpty()) {
            return tables.stageUpsert(manifest, rows, OBJECT_ID, properties);
        }
        // Known addresses cover every row but commits (and the tail's commits when it is written again), and a new
        // commit row's id is a fresh ULID: no scan needed.
        Map<String, Long> known = state.rowAddresses();
        if (!tailAddresses.isEmpty()) {
            known = new HashMap<>(known);
            known.putAll(tailAddresses);
        }
        return tables.stageUpsertAt(manifest, known, rows, OBJECT_ID, properties);
    }

    /** Commits manifest rows staged by {@link #stageRows}; they must land exactly on the staged read version. */
    Mono<CommittedVersion> commitRows(StagedHandle handle, String commitId) {
        return tables.commitStaged(handle).map(committed -> {
            if (!committed.isExactly(handle.identity())) {
                throw new StorageFault("manifest publish " + commitId + " landed as " + committed
                        + " instead of exactly on version " + handle.identity().readVersion(), null);
            }
            return committed;
        });
    }

}
