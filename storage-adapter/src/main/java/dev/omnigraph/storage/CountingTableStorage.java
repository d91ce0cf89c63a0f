package dev.omnigraph.storage;

import dev.omnigraph.storage.StorageCallCounter.Call;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A {@link TableStorage} that counts each call by class, then delegates; for benchmarks and cost tests that
 * report storage calls per operation. Counted at subscription (a retried Mono counts each attempt). Staged
 * handles pass through untouched, so they stay the delegate's own. {@link #close()} closes the delegate.
 */
public final class CountingTableStorage implements TableStorage {
    private final TableStorage delegate;
    private final StorageCallCounter counter;

    public CountingTableStorage(TableStorage delegate, StorageCallCounter counter) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.counter = Objects.requireNonNull(counter, "counter");
    }

    public StorageCallCounter counter() {
        return counter;
    }

    private <T> Mono<T> counted(StorageCallCounter.Call call, Supplier<Mono<T>> work) {
        return counter.counted(call, work);
    }

    @Override
    public Mono<TableSnapshot> create(String path, Schema schema) {
        return counted(Call.CREATE, () -> delegate.create(path, schema));
    }

    /** The delegate's view: not a storage call, so not counted. */
    @Override
    public KeptHandleStats keptHandles() {
        return delegate.keptHandles();
    }

    @Override
    public Mono<TableSnapshot> open(TableRef ref, OptionalLong version) {
        return counted(Call.OPEN, () -> delegate.open(ref, version));
    }

    @Override
    public Flux<RowBatch> scan(TableSnapshot snapshot, ScanRequest request) {
        return counter.countedFlux(Call.SCAN, () -> delegate.scan(snapshot, request)
                .doOnNext(batch -> counter.add(Call.SCAN_ROWS, batch.size())));
    }

    @Override
    public Mono<java.util.Set<String>> keysAmong(TableSnapshot snapshot, String column,
                                                 java.util.function.Predicate<String> wanted) {
        return counted(Call.SCAN, () -> delegate.keysAmong(snapshot, column, wanted));
    }

    /** Counted as {@code blob}; the bytes the storage read to answer add to the {@code blob.bytes} volume. */
    @Override
    public Mono<BlobRead> readBlob(TableSnapshot snapshot, String keyColumn, String key, String column,
                                   BlobWindow window) {
        return counted(Call.BLOB, () -> delegate.readBlob(snapshot, keyColumn, key, column, window)
                .doOnNext(read -> {
                    if (read instanceof BlobRead.Slice slice) counter.add(Call.BLOB_BYTES, slice.bytesRead());
                }));
    }

    @Override
    public Mono<Long> count(TableSnapshot snapshot, Optional<String> filter) {
        return counted(Call.COUNT, () -> delegate.count(snapshot, filter));
    }

    @Override
    public Mono<StagedHandle> stageAppend(TableSnapshot snapshot, List<Map<String, Object>> rows,
                                          Map<String, String> properties) {
        return counted(Call.STAGE, () -> delegate.stageAppend(snapshot, rows, properties));
    }

    @Override
    public Mono<StagedHandle> stageUpsert(TableSnapshot snapshot, List<Map<String, Object>> rows, String keyColumn,
                                          Map<String, String> properties) {
        return counted(Call.STAGE, () -> delegate.stageUpsert(snapshot, rows, keyColumn, properties));
    }

    @Override
    public Mono<Optional<StagedHandle>> stageRowDelta(TableSnapshot snapshot, List<Map<String, Object>> rows,
                                                      List<String> deleteKeys, String keyColumn,
                                                      Map<String, String> properties) {
        return counted(Call.STAGE, () -> delegate.stageRowDelta(snapshot, rows, deleteKeys, keyColumn, properties));
    }

    @Override
    public Mono<StagedHandle> stageUpsertAt(TableSnapshot snapshot, Map<String, Long> knownAddresses,
                                            List<Map<String, Object>> rows, String keyColumn,
                                            Map<String, String> properties) {
        return counted(Call.STAGE, () -> delegate.stageUpsertAt(snapshot, knownAddresses, rows, keyColumn, properties));
    }

    @Override
    public Mono<StagedHandle> stageUpsertInPartsAt(TableSnapshot snapshot, Map<String, Long> knownAddresses,
                                                   List<List<Map<String, Object>>> parts, String keyColumn,
                                                   Map<String, String> properties) {
        return counted(Call.STAGE, () -> delegate.stageUpsertInPartsAt(snapshot, knownAddresses, parts, keyColumn,
                properties));
    }

    @Override
    public Mono<Optional<StagedHandle>> stageDelete(TableSnapshot snapshot, String predicate,
                                                    Map<String, String> properties) {
        return counted(Call.STAGE, () -> delegate.stageDelete(snapshot, predicate, properties));
    }

    @Override
    public Mono<StagedHandle> stageOverwrite(TableSnapshot snapshot, List<Map<String, Object>> rows,
                                             Map<String, String> properties) {
        return counted(Call.STAGE, () -> delegate.stageOverwrite(snapshot, rows, properties));
    }

    @Override
    public Mono<StagedHandle> stageOverwrite(TableSnapshot snapshot, List<Map<String, Object>> rows,
                                             org.apache.arrow.vector.types.pojo.Schema schema,
                                             Map<String, String> properties) {
        return counted(Call.STAGE, () -> delegate.stageOverwrite(snapshot, rows, schema, properties));
    }

    @Override
    public Mono<CommittedVersion> commitStaged(StagedHandle handle) {
        return counted(Call.COMMIT, () -> delegate.commitStaged(handle));
    }

    @Override
    public Mono<Void> discard(StagedHandle handle) {
        // Discarding a spent handle does nothing at all (no storage thread, no Lance object): not a call.
        return Mono.defer(() -> handle.spent() ? delegate.discard(handle) : counted(Call.DISCARD, () -> delegate.discard(handle)));
    }

    @Override
    public Mono<Optional<TransactionIdentity>> transactionAt(TableRef ref, long version) {
        return counted(Call.TRANSACTION_AT, () -> delegate.transactionAt(ref, version));
    }

    @Override
    public Mono<Long> head(TableRef ref) {
        return counted(Call.HEAD, () -> delegate.head(ref));
    }

    @Override
    public Mono<CommittedVersion> restore(TableRef ref, long toVersion) {
        return counted(Call.RESTORE, () -> delegate.restore(ref, toVersion));
    }

    @Override
    public Mono<StagedHandle> stageRestore(TableRef ref, long toVersion) {
        return counted(Call.RESTORE, () -> delegate.stageRestore(ref, toVersion));
    }

    @Override
    public Mono<Optional<Long>> compactFragments(TableRef ref) {
        return counted(Call.COMPACT, () -> delegate.compactFragments(ref));
    }

    @Override
    public Mono<VersionGcPlan> planVersionGc(ObjectStore root, String location,
                                             Map<Optional<String>, VersionRetention> retention,
                                             java.time.Instant orphanCutoff) {
        return counted(Call.GC, () -> delegate.planVersionGc(root, location, retention, orphanCutoff));
    }

    @Override
    public Mono<Long> applyVersionGc(ObjectStore root, VersionGcPlan plan, VersionGcPlan.Phase phase) {
        return counted(Call.GC, () -> delegate.applyVersionGc(root, plan, phase));
    }

    @Override
    public Mono<List<String>> indexNames(TableRef ref, long version) {
        return counted(Call.INDEX, () -> delegate.indexNames(ref, version));
    }

    @Override
    public Mono<Optional<StagedHandle>> stageIndexes(TableSnapshot snapshot, List<IndexSpec> specs,
                                                    Map<String, String> properties, SegmentMerge merge) {
        return counted(Call.INDEX, () -> delegate.stageIndexes(snapshot, specs, properties, merge));
    }

    @Override
    public Mono<List<IndexSpec>> indexWork(TableRef ref, long version, List<IndexSpec> specs) {
        return counted(Call.INDEX, () -> delegate.indexWork(ref, version, specs));
    }

    @Override
    public Mono<List<IndexSpec>> indexesToCreate(TableRef ref, long version, List<IndexSpec> specs) {
        return counted(Call.INDEX, () -> delegate.indexesToCreate(ref, version, specs));
    }

    @Override
    public Mono<List<String>> partialIndexes(TableRef ref, long version, double unindexedShare) {
        return counted(Call.INDEX, () -> delegate.partialIndexes(ref, version, unindexedShare));
    }

    @Override
    public Mono<Boolean> sameFragments(TableRef ref, long base, long upTo) {
        return counted(Call.OPEN, () -> delegate.sameFragments(ref, base, upTo));
    }

    @Override
    public Mono<Map<Integer, Long>> liveRowsByFragment(TableSnapshot snapshot) {
        return counted(Call.OPEN, () -> delegate.liveRowsByFragment(snapshot));
    }

    @Override
    public Mono<List<Map<String, Object>>> nearest(TableSnapshot snapshot, NearestRequest request) {
        return counted(Call.SCAN, () -> delegate.nearest(snapshot, request));
    }

    @Override
    public Mono<Optional<List<Map<String, Object>>>> fullText(TableSnapshot snapshot, String indexName,
                                                              FullTextRequest request) {
        return counted(Call.FULL_TEXT, () -> delegate.fullText(snapshot, indexName, request)
                .doOnNext(rows -> rows.ifPresent(found -> counter.add(Call.FULL_TEXT_ROWS, found.size()))));
    }

    @Override
    public Mono<Integer> compactionTasks(TableRef ref) {
        return counted(Call.COMPACT, () -> delegate.compactionTasks(ref));
    }

    @Override
    public Mono<List<String>> operationsBetween(TableRef ref, long after, long upTo) {
        return counted(Call.TRANSACTION_AT, () -> delegate.operationsBetween(ref, after, upTo));
    }

    @Override
    public Mono<List<Optional<TransactionMark>>> transactionMarks(TableRef ref, long after, long upTo, String key) {
        return counted(Call.TRANSACTION_AT, () -> delegate.transactionMarks(ref, after, upTo, key));
    }

    @Override
    public Mono<FragmentDiff> fragmentDiff(TableSnapshot before, TableSnapshot after, int maxPickedRows) {
        return counted(Call.OPEN, () -> delegate.fragmentDiff(before, after, maxPickedRows));
    }

    /** Counted as a {@code scan} of the key column. */
    @Override
    public Mono<KeyRowIndex> keyRows(TableSnapshot snapshot, String column,
                                     java.util.Optional<java.util.List<Integer>> fragments) {
        return counted(Call.SCAN, () -> delegate.keyRows(snapshot, column, fragments));
    }

    /** Counted as a {@code scan} (a take is a read of rows), with the rows it delivered. */
    @Override
    public Flux<RowBatch> takeRows(TableSnapshot snapshot, java.util.List<Long> rowIds, java.util.List<String> columns) {
        return counter.countedFlux(Call.SCAN, () -> delegate.takeRows(snapshot, rowIds, columns)
                .doOnNext(batch -> counter.add(Call.SCAN_ROWS, batch.size())));
    }

    /** Counted as a scan; the rows it returned add to {@code scan.rows}. */
    @Override
    public Flux<RowBatch> rowsAt(TableSnapshot snapshot, FragmentDiff.RowPicks picks) {
        return counter.countedFlux(Call.SCAN, () -> delegate.rowsAt(snapshot, picks)
                .doOnNext(batch -> counter.add(Call.SCAN_ROWS, batch.size())));
    }

    @Override
    public Mono<LanceBranch> createBranch(TableRef from, long fromVersion, String name) {
        return counted(Call.BRANCH, () -> delegate.createBranch(from, fromVersion, name));
    }

    @Override
    public Mono<Void> deleteBranch(String path, String name) {
        return counted(Call.BRANCH, () -> delegate.deleteBranch(path, name));
    }

    @Override
    public Mono<List<LanceBranch>> listBranches(String path) {
        return counted(Call.BRANCH, () -> delegate.listBranches(path));
    }

    @Override
    public void close() {
        delegate.close();
    }
}
