package dev.omnigraph.engine.read;

import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.FragmentDiff;
import dev.omnigraph.storage.KeyRowIndex;
import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Reads the tables of one pinned manifest state: every table at the version that state publishes (each scan opens
 * that version itself, so nothing is opened twice). Batches are handed to the parallel scheduler (a couple at a
 * time), so joins, sorts and aggregation never occupy the bounded storage threads, and a consumer that stops (a
 * budget breach, a timeout) cancels the scan between two batches.
 */
final class TableReader {
    /** Ids per {@code IN (...)} list of a frontier or id fetch. */
    static final int IN_BATCH = 512;
    /** Batches a consumer on the parallel scheduler may have queued: what a join holds beyond its own output. */
    private static final int PREFETCH = 2;

    private final TableStorage tables;
    private final String root;
    private final ManifestState state;
    private final Failpoints failpoints;
    private final QueryBudget budget;
    private final TopologyCache topologies;
    private final KeyRowsCache keyRows;

    TableReader(TableStorage tables, String root, ManifestState state) {
        this(tables, root, state, Failpoints.none(), QueryBudget.unbounded(), new TopologyCache(0), new KeyRowsCache(0, 0));
    }

    /**
     * A reader for one query: rows kept by key lookups are charged to {@code budget}; traversals may walk the
     * adjacency {@code topologies} holds (or builds) for the pinned edge table versions; keyed reads may take rows
     * where {@code keyRows} has an index of the pinned node table version.
     */
    TableReader(TableStorage tables, String root, ManifestState state, Failpoints failpoints, QueryBudget budget,
                TopologyCache topologies, KeyRowsCache keyRows) {
        this.tables = tables;
        this.root = root;
        this.state = state;
        this.failpoints = failpoints;
        this.budget = budget;
        this.topologies = topologies;
        this.keyRows = keyRows;
    }

    /** Ids up to which a keyed read takes rows by row id; more are fetched by {@code IN} scans. */
    static final int MAX_TAKEN_KEYS = 8_192;

    /**
     * The rows of {@code table} whose id is one of {@code ids}, projected to {@code columns} (plus {@code id}), taken by
     * row id where {@link KeyRowsCache} holds an index of the pinned version; empty when it holds none (its build then
     * starts in the background) or cannot answer, and the caller scans. Exact: the taken candidates whose id is not
     * wanted (a shared fingerprint) are dropped, and a wanted id without a row is held by no row of the version.
     */
    Mono<java.util.Optional<List<Map<String, Object>>>> rowsByKey(CatalogTable table, Collection<String> ids,
                                                                   List<String> columns) {
        TableEntry e = entry(table);
        if (ids.isEmpty() || ids.size() > MAX_TAKEN_KEYS || e.lanceBranch().isPresent() || !keyRows.indexes(e.rowCount())) {
            return Mono.just(java.util.Optional.empty());
        }
        VersionedLru.Key key = cacheKey(e);
        java.util.Optional<KeyRowIndex> index = keyRows.get(key, older -> keyRowsOf(table, older));
        if (index.isEmpty()) return Mono.just(java.util.Optional.empty());
        List<Long> candidates = new ArrayList<>();
        for (String id : ids) for (long rowId : index.get().candidates(id)) candidates.add(rowId);
        if (candidates.isEmpty()) return Mono.just(java.util.Optional.of(List.of()));
        java.util.Set<String> wanted = ids instanceof java.util.Set<String> set ? set : new java.util.HashSet<>(ids);
        List<String> projected = columns.contains("id") ? columns : concat(columns, "id");
        return failpoints.hit(QueryExecutor.SCAN_FAILPOINT)
                .thenMany(Flux.defer(() -> tables.takeRows(snapshot(table), candidates, projected)))
                .concatMapIterable(RowBatch::rows)
                .filter(row -> wanted.contains((String) row.get("id")))
                .collectList()
                .map(java.util.Optional::of)
                // A column takeRows cannot read (blob-encoded): the scan answers.
                .onErrorResume(StorageFault.class, refused -> Mono.just(java.util.Optional.empty()));
    }

    private static List<String> concat(List<String> columns, String column) {
        List<String> all = new ArrayList<>(columns);
        all.add(column);
        return all;
    }

    /**
     * The key rows of {@code table}'s pinned version: {@code older}'s plus a scan of the fragments this version added,
     * when the fragment metadata shows it only added fragments (as for topologies); else one scan of the key column.
     */
    private Mono<KeyRowIndex> keyRowsOf(CatalogTable table, java.util.Optional<VersionedLru.Entry<KeyRowIndex>> older) {
        TableSnapshot now = snapshot(table);
        Mono<KeyRowIndex> whole = Mono.defer(() -> tables.keyRows(now, "id", java.util.Optional.empty()));
        if (older.isEmpty()) return whole;
        return appendedSince(table, older.get().key())
                .flatMap(added -> {
                    keyRows.extended();
                    return tables.keyRows(now, "id", java.util.Optional.of(added))
                            .map(rows -> older.get().value().plus(rows));
                })
                .switchIfEmpty(whole);
    }

    /**
     * The fragments {@code table}'s pinned version added to the older version {@code was}, when the fragment metadata
     * proves it only added fragments (every fragment of {@code was} is here with the same data files, deletions and
     * row ids, so the same rows); empty when it did more, or when {@code was} is gone (another process's cleanup).
     */
    private Mono<List<Integer>> appendedSince(CatalogTable table, VersionedLru.Key was) {
        TableSnapshot now = snapshot(table);
        return tables.fragmentDiff(TableSnapshot.pinned(now.ref(), was.version(), was.rowCount()), now, 0)
                .onErrorResume(gone -> Mono.empty())
                .filter(diff -> diff.beforeOnly().isEmpty() && diff.beforeRows().isEmpty() && diff.afterRows().isEmpty())
                .map(FragmentDiff::afterOnly);
    }

    /**
     * The adjacency of {@code edge} at its pinned version: cached, or built from one scan of its {@code src} and
     * {@code dst}; empty when the cache is off, the table cannot fit, or the version is on a Lance branch. When an
     * older version of the table is cached and the fragment metadata shows that this version only added fragments
     * to it (every fragment of the older version is here with the same data files, deletions and row ids), the
     * older topology is extended by a scan of the added fragments alone.
     */
    Mono<java.util.Optional<Topology>> topology(CatalogTable edge) {
        TableEntry e = entry(edge);
        if (e.lanceBranch().isPresent()) return Mono.just(java.util.Optional.empty());
        VersionedLru.Key key = cacheKey(e);
        return topologies.get(key, () -> topologies.newestBefore(key)
                .map(older -> extended(edge, older).switchIfEmpty(Mono.defer(() -> built(edge, null))))
                .orElseGet(() -> built(edge, null)));
    }

    /** {@code older} extended by the fragments this version added; empty when it did more than add fragments. */
    private Mono<Topology> extended(CatalogTable edge, VersionedLru.Entry<Topology> older) {
        return appendedSince(edge, older.key()).flatMap(added -> {
            topologies.extended();
            if (added.isEmpty()) return Mono.just(older.value()); // same rows (an index build)
            return built(edge, Topology.Builder.extending(older.value(), topologies.capBytes()).onFragments(added));
        });
    }

    /** Feeds the rows of {@code edge} (all, or the builder's fragments) to a builder; a fresh one when null. */
    private Mono<Topology> built(CatalogTable edge, Topology.Builder given) {
        Topology.Builder builder = given != null ? given : new Topology.Builder(topologies.capBytes());
        ScanRequest request = ScanRequest.all().withColumns(List.of("src", "dst"))
                .withBatchSize(ScanRequest.DEFAULT_BATCH_SIZE);
        ScanRequest scoped = builder.fragments() == null ? request : request.onFragments(builder.fragments());
        return failpoints.hit(QueryExecutor.SCAN_FAILPOINT).thenMany(Flux.defer(() -> tables.scan(snapshot(edge), scoped)))
                .publishOn(Schedulers.parallel(), PREFETCH)
                .doOnNext(batch -> {
                    for (Map<String, Object> row : batch.rows()) builder.add((String) row.get("src"), (String) row.get("dst"));
                })
                .then(Mono.fromCallable(builder::build));
    }

    /** What the read caches file a pinned table version under: its full dataset path, version and row count. */
    private VersionedLru.Key cacheKey(TableEntry e) {
        return new VersionedLru.Key(root + "/" + e.location(), e.version(), e.rowCount());
    }

    ManifestState state() {
        return state;
    }

    TableEntry entry(CatalogTable table) {
        return state.table(table.tableKey()).orElseThrow(() -> new StorageFault("the snapshot at manifest version "
                + state.manifestVersion() + " has no live table " + table.tableKey(), null));
    }

    /** The row count the manifest records for a table (a planning hint only). */
    long rowCount(CatalogTable table) {
        return state.table(table.tableKey()).map(TableEntry::rowCount).orElse(0L);
    }

    /** The table at its pinned version; nothing is opened here, since a scan opens its version itself. */
    TableSnapshot snapshot(CatalogTable table) {
        TableEntry e = entry(table);
        return TableSnapshot.pinned(new TableRef(root + "/" + e.location(), e.lanceBranch()), e.version(), e.rowCount());
    }

    /** Streams the rows of {@code table} matching {@code where} (all rows when null), honouring demand. */
    Flux<Map<String, Object>> scan(CatalogTable table, String where, List<String> columns, int batchSize) {
        return rawBatches(table, where, columns, batchSize).concatMapIterable(RowBatch::rows);
    }

    /**
     * The rows of {@code table} for a variable with a text clause: what the column's inverted index pre-selects (one
     * batch) when the pinned version has it, else the scan of {@code where}. Callers evaluate every filter.
     */
    Flux<List<Map<String, Object>>> batches(CatalogTable table, String where, List<String> columns, int batchSize,
                                            java.util.Optional<TextCandidates> text) {
        if (text.isEmpty()) return rawBatches(table, where, columns, batchSize).map(RowBatch::rows);
        TextCandidates t = text.get();
        return failpoints.hit(QueryExecutor.SCAN_FAILPOINT)
                .then(Mono.defer(() -> tables.fullText(snapshot(table), t.index(), t.request(columns))))
                .flatMapMany(found -> found.isPresent() ? Flux.just(found.get())
                        : rawBatches(table, where, columns, batchSize).map(RowBatch::rows));
    }

    /** The matching rows batch by batch, delivered on the parallel scheduler. */
    Flux<List<Map<String, Object>>> batches(CatalogTable table, String where, List<String> columns) {
        return rawBatches(table, where, columns, ScanRequest.DEFAULT_BATCH_SIZE)
                .publishOn(Schedulers.parallel(), PREFETCH)
                .map(RowBatch::rows);
    }

    private Flux<RowBatch> rawBatches(CatalogTable table, String where, List<String> columns, int batchSize) {
        ScanRequest request = ScanRequest.all().withColumns(columns).withBatchSize(batchSize);
        ScanRequest filtered = where == null ? request : request.withFilter(where);
        return failpoints.hit(QueryExecutor.SCAN_FAILPOINT).thenMany(Flux.defer(() -> tables.scan(snapshot(table), filtered)));
    }

    /**
     * Rows selected by keys: the keys are cut into lists of {@link #IN_BATCH}, {@code where} turns one list into a
     * predicate, and the rows it selects are passed to {@code perBatch} as they arrive (one call per scanned batch),
     * together with that key list (so a row found by two lists can be attributed to the one holding its key). The
     * rows are charged to the query's budget as kept.
     */
    Mono<Void> scanByKeys(CatalogTable table, Collection<String> keys, Function<List<String>, String> where,
                              List<String> columns, BatchConsumer perBatch) {
        if (keys.isEmpty()) return Mono.empty();
        List<List<String>> batches = new ArrayList<>();
        List<String> current = new ArrayList<>(IN_BATCH);
        for (String k : keys) {
            current.add(k);
            if (current.size() == IN_BATCH) {
                batches.add(current);
                current = new ArrayList<>(IN_BATCH);
            }
        }
        if (!current.isEmpty()) batches.add(current);
        return Flux.fromIterable(batches)
                .concatMap(batch -> batches(table, where.apply(batch), columns).doOnNext(rows -> {
                    budget.keep(rows);
                    perBatch.accept(batch, rows);
                }))
                .then();
    }

    @FunctionalInterface
    interface BatchConsumer {
        void accept(List<String> keys, List<Map<String, Object>> rows);
    }
}
