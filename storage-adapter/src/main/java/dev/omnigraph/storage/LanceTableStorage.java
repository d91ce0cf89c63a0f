package dev.omnigraph.storage;

import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Transaction;
import org.lance.WriteParams;
import org.lance.operation.Operation;
import org.lance.operation.UpdateConfig;
import org.lance.operation.UpdateMap;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@link TableStorage} on lance-core: a facade over its parts, one concern each (scans, staging and commits,
 * version history, branches, indexes, maintenance), which share one {@link LanceDatasets}.
 */
public final class LanceTableStorage implements TableStorage {
    private static final List<String> AUTO_CLEANUP_KEYS =
            List.of("lance.auto_cleanup.interval", "lance.auto_cleanup.older_than");

    private final LanceDatasets datasets;
    private final LanceScans scans;
    private final LanceKeyRows keyed;
    private final LanceVersionReads versions;
    private final LanceStaging staging;
    private final LanceBranchOps branches;
    private final LanceIndexOps indexes;
    private final LanceMaintenance maintenance;
    private final LanceFullText fullText;

    public LanceTableStorage(StorageScheduler storage) {
        this(storage, LanceDatasets.NEW_TABLE_FORMAT);
    }

    /**
     * A storage whose {@link #create} makes tables in Lance file format {@code newTableFormat} ("2.0" or "2.1");
     * tables that exist keep their own. The benchmarks compare the two; the engine uses the default.
     */
    public LanceTableStorage(StorageScheduler storage, String newTableFormat) {
        this.datasets = new LanceDatasets(storage, newTableFormat);
        this.scans = new LanceScans(datasets);
        this.keyed = new LanceKeyRows(datasets);
        this.versions = new LanceVersionReads(datasets);
        this.staging = new LanceStaging(datasets, versions);
        this.branches = new LanceBranchOps(datasets);
        this.indexes = new LanceIndexOps(datasets, staging);
        this.maintenance = new LanceMaintenance(datasets);
        this.fullText = new LanceFullText(datasets);
    }

    @Override
    public Mono<TableSnapshot> create(String path, Schema schema) {
        TableRef ref = TableRef.main(path);
        return datasets.withAllocator("create", ref, allocator -> {
            datasets.handles().dropDataset(path); // versions restart: nothing kept may answer for the new dataset
            Schema stored = BlobEncoding.forFormat(schema, datasets.newTableFormat());
            try (Dataset created = Dataset.create(allocator, path, stored, new WriteParams.Builder()
                    .withEnableStableRowIds(true).withDataStorageVersion(datasets.newTableFormat())
                    .withStorageOptions(LanceStorageOptions.forUri(path)).build())) {
                // Auto-cleanup ignores branches and manifest pins; version GC is ours alone. Lance 7 creates
                // datasets without it; an older Lance turned it on, and this commit turned it off again.
                if (AUTO_CLEANUP_KEYS.stream().noneMatch(created.getConfig()::containsKey)) {
                    return LanceDatasets.snapshotOf(ref, created);
                }
                Map<String, String> removals = new HashMap<>();
                AUTO_CLEANUP_KEYS.forEach(key -> removals.put(key, null));
                Operation noCleanup = UpdateConfig.builder()
                        .configUpdates(UpdateMap.builder().updates(removals).replace(false).build()).build();
                try (Transaction transaction = new Transaction.Builder().readVersion(created.version())
                        .operation(noCleanup).build();
                     Dataset configured = new CommitBuilder(created).execute(transaction)) {
                    return LanceDatasets.snapshotOf(ref, configured);
                }
            }
        });
    }

    @Override
    public KeptHandleStats keptHandles() {
        return datasets.handles().stats();
    }

    @Override
    public Mono<TableSnapshot> open(TableRef ref, OptionalLong version) {
        // A version whose handle is kept (a head that has not moved since it was read) is answered without an open.
        return datasets.withAllocator("open", ref, allocator -> datasets.handles().keptSnapshot(ref, version)
                .orElseGet(() -> {
                    try (Dataset dataset = LanceDatasets.open(allocator, ref, version)) {
                        return LanceDatasets.snapshotOf(ref, dataset);
                    }
                }));
    }

    // ---- reads ----

    @Override
    public Flux<RowBatch> scan(TableSnapshot snapshot, ScanRequest request) {
        return scans.scan(snapshot, request);
    }

    @Override
    public Mono<Set<String>> keysAmong(TableSnapshot snapshot, String column, Predicate<String> wanted) {
        return scans.keysAmong(snapshot, column, wanted);
    }

    @Override
    public Mono<Long> count(TableSnapshot snapshot, Optional<String> filter) {
        return scans.count(snapshot, filter);
    }

    @Override
    public Mono<BlobRead> readBlob(TableSnapshot snapshot, String keyColumn, String key, String column,
                                   BlobWindow window) {
        return datasets.with("readBlob", snapshot.ref(), OptionalLong.of(snapshot.version()), (dataset, allocator) -> {
            try {
                return LanceBlobs.read(dataset, snapshot.ref(), allocator, keyColumn, key, column, window);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    // ---- staging and commits ----

    @Override
    public Mono<StagedHandle> stageAppend(TableSnapshot snapshot, List<Map<String, Object>> rows,
                                          Map<String, String> properties) {
        return staging.stageAppend(snapshot, rows, properties);
    }

    @Override
    public Mono<StagedHandle> stageUpsert(TableSnapshot snapshot, List<Map<String, Object>> rows, String keyColumn,
                                          Map<String, String> properties) {
        return staging.stageUpsert(snapshot, rows, keyColumn, properties);
    }

    @Override
    public Mono<StagedHandle> stageUpsertAt(TableSnapshot snapshot, Map<String, Long> knownAddresses,
                                            List<Map<String, Object>> rows, String keyColumn,
                                            Map<String, String> properties) {
        return staging.stageUpsertAt(snapshot, knownAddresses, rows, keyColumn, properties);
    }

    @Override
    public Mono<StagedHandle> stageUpsertInPartsAt(TableSnapshot snapshot, Map<String, Long> knownAddresses,
                                                   List<List<Map<String, Object>>> parts, String keyColumn,
                                                   Map<String, String> properties) {
        return staging.stageUpsertInPartsAt(snapshot, knownAddresses, parts, keyColumn, properties);
    }

    @Override
    public Mono<Optional<StagedHandle>> stageRowDelta(TableSnapshot snapshot, List<Map<String, Object>> rows,
                                                      List<String> deleteKeys, String keyColumn,
                                                      Map<String, String> properties) {
        return staging.stageRowDelta(snapshot, rows, deleteKeys, keyColumn, properties);
    }

    @Override
    public Mono<Optional<StagedHandle>> stageDelete(TableSnapshot snapshot, String predicate,
                                                    Map<String, String> properties) {
        return staging.stageDelete(snapshot, predicate, properties);
    }

    @Override
    public Mono<StagedHandle> stageOverwrite(TableSnapshot snapshot, List<Map<String, Object>> rows,
                                             Map<String, String> properties) {
        return staging.stageOverwrite(snapshot, rows, properties);
    }

    @Override
    public Mono<StagedHandle> stageOverwrite(TableSnapshot snapshot, List<Map<String, Object>> rows, Schema schema,
                                             Map<String, String> properties) {
        return staging.stageOverwrite(snapshot, rows, schema, properties);
    }

    @Override
    public Mono<StagedHandle> stageRestore(TableRef ref, long toVersion) {
        return staging.stageRestore(ref, toVersion);
    }

    @Override
    public Mono<CommittedVersion> commitStaged(StagedHandle handle) {
        return staging.commitStaged(handle);
    }

    @Override
    public Mono<Void> discard(StagedHandle handle) {
        return staging.discard(handle);
    }

    @Override
    public Mono<CommittedVersion> restore(TableRef ref, long toVersion) {
        return stageRestore(ref, toVersion).flatMap(this::commitStaged);
    }

    // ---- history ----

    @Override
    public Mono<Long> head(TableRef ref) {
        return versions.head(ref);
    }

    @Override
    public Mono<Optional<TransactionIdentity>> transactionAt(TableRef ref, long version) {
        return versions.transactionAt(ref, version);
    }

    @Override
    public Mono<Boolean> sameFragments(TableRef ref, long base, long upTo) {
        return versions.sameFragments(ref, base, upTo);
    }

    @Override
    public Mono<List<String>> operationsBetween(TableRef ref, long after, long upTo) {
        return versions.operationsBetween(ref, after, upTo);
    }

    @Override
    public Mono<List<Optional<TransactionMark>>> transactionMarks(TableRef ref, long after, long upTo, String key) {
        return versions.transactionMarks(ref, after, upTo, key);
    }

    @Override
    public Mono<Map<Integer, Long>> liveRowsByFragment(TableSnapshot snapshot) {
        return versions.liveRowsByFragment(snapshot);
    }

    @Override
    public Mono<FragmentDiff> fragmentDiff(TableSnapshot before, TableSnapshot after, int maxPickedRows) {
        return versions.fragmentDiff(before, after, maxPickedRows);
    }

    @Override
    public Flux<RowBatch> rowsAt(TableSnapshot snapshot, FragmentDiff.RowPicks picks) {
        return scans.rowsAt(snapshot, picks);
    }

    @Override
    public Mono<KeyRowIndex> keyRows(TableSnapshot snapshot, String column, Optional<List<Integer>> fragments) {
        return keyed.keyRows(snapshot, column, fragments);
    }

    @Override
    public Flux<RowBatch> takeRows(TableSnapshot snapshot, List<Long> rowIds, List<String> columns) {
        return keyed.takeRows(snapshot, rowIds, columns);
    }

    // ---- indexes ----

    @Override
    public Mono<List<String>> indexNames(TableRef ref, long version) {
        return indexes.names(ref, version);
    }

    @Override
    public Mono<Optional<StagedHandle>> stageIndexes(TableSnapshot snapshot, List<IndexSpec> specs,
                                                    Map<String, String> properties, SegmentMerge merge) {
        return indexes.stage(snapshot, specs, properties, merge);
    }

    @Override
    public Mono<List<IndexSpec>> indexWork(TableRef ref, long version, List<IndexSpec> specs) {
        return indexes.needingWork(ref, version, specs);
    }

    @Override
    public Mono<List<IndexSpec>> indexesToCreate(TableRef ref, long version, List<IndexSpec> specs) {
        return indexes.toCreate(ref, version, specs);
    }

    @Override
    public Mono<List<String>> partialIndexes(TableRef ref, long version, double unindexedShare) {
        return indexes.partial(ref, version, unindexedShare);
    }

    @Override
    public Mono<List<Map<String, Object>>> nearest(TableSnapshot snapshot, NearestRequest request) {
        return indexes.nearest(snapshot, request);
    }

    @Override
    public Mono<Optional<List<Map<String, Object>>>> fullText(TableSnapshot snapshot, String indexName,
                                                              FullTextRequest request) {
        return fullText.search(snapshot, indexName, request);
    }

    // ---- maintenance ----

    @Override
    public Mono<Optional<Long>> compactFragments(TableRef ref) {
        return maintenance.compactTiered(ref);
    }

    @Override
    public Mono<Integer> compactionTasks(TableRef ref) {
        return maintenance.compactionTasks(ref);
    }

    @Override
    public Mono<VersionGcPlan> planVersionGc(ObjectStore root, String location,
                                             Map<Optional<String>, VersionRetention> retention, Instant orphanCutoff) {
        return maintenance.planVersionGc(root, location, retention, orphanCutoff);
    }

    @Override
    public Mono<Long> applyVersionGc(ObjectStore root, VersionGcPlan plan, VersionGcPlan.Phase phase) {
        return maintenance.applyVersionGc(root, plan, phase);
    }

    // ---- branches ----

    @Override
    public Mono<LanceBranch> createBranch(TableRef from, long fromVersion, String name) {
        return branches.create(from, fromVersion, name);
    }

    @Override
    public Mono<Void> deleteBranch(String path, String name) {
        return branches.delete(path, name);
    }

    @Override
    public Mono<List<LanceBranch>> listBranches(String path) {
        return branches.list(path);
    }

    /** The shared parts (tests look at the kept handles). */
    LanceDatasets datasets() {
        return datasets;
    }

    /** Closes the root allocator, which fails loudly if any Arrow buffer leaked, once cancelled scans have closed. */
    @Override
    public void close() {
        scans.awaitClosedScans();
        keyed.awaitIdle();
        datasets.close();
    }
}
