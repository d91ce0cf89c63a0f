package dev.omnigraph.storage;

import org.lance.Dataset;
import org.lance.ipc.ColumnOrdering;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The reading part of {@link LanceTableStorage}: streaming scans, key-column matches and counts of a snapshot. */
final class LanceScans {
    /** Row ids per take: the ids cross JNI as one list. */
    private static final int TAKE_CHUNK = 4096;
    private final LanceDatasets datasets;
    private final AtomicInteger openScans = new AtomicInteger();

    LanceScans(LanceDatasets datasets) {
        this.datasets = datasets;
    }

    Flux<RowBatch> scan(TableSnapshot snapshot, ScanRequest request) {
        if (request.fragments().filter(List::isEmpty).isPresent()) {
            return Flux.empty(); // no fragment: Lance would read them all
        }
        return batches(snapshot, request, (scan, root) -> new RowBatch(scan.columns(), scan.rows(root)));
    }

    /**
     * {@link TableStorage#rowsAt}: Lance's take by row id, in chunks. A table with blob-encoded columns goes through
     * the scan path instead (a {@code _rowid} filter over the picked fragments), which fetches blob bytes per batch.
     */
    Flux<RowBatch> rowsAt(TableSnapshot snapshot, FragmentDiff.RowPicks picks) {
        if (picks.isEmpty()) return Flux.empty();
        List<List<Long>> chunks = new ArrayList<>();
        for (int from = 0; from < picks.size(); from += TAKE_CHUNK) {
            chunks.add(picks.rowIds().subList(from, Math.min(picks.size(), from + TAKE_CHUNK)));
        }
        if (snapshot.schema().getFields().stream().anyMatch(BlobEncoding::isEncoded)) {
            return Flux.fromIterable(chunks).concatMap(ids -> scan(snapshot,
                    ScanRequest.where(SqlLiterals.inNumbers(LanceBlobs.ROW_ID, ids)).onFragments(picks.fragments())));
        }
        List<String> columns = snapshot.schema().getFields().stream().map(Field::getName).toList();
        return datasets.with("rowsAt", snapshot.ref(), OptionalLong.of(snapshot.version()), (dataset, allocator) -> {
            List<RowBatch> out = new ArrayList<>();
            for (List<Long> ids : chunks) {
                LanceKeyRows.take(dataset, snapshot.ref(), ids, columns, out);
            }
            return out;
        }).flatMapIterable(batches -> batches);
    }

    Mono<Set<String>> keysAmong(TableSnapshot snapshot, String column, Predicate<String> wanted) {
        KeyColumnMatch match = new KeyColumnMatch(column, wanted);
        ScanRequest request = ScanRequest.all().withColumns(List.of(column)).withBatchSize(KeyColumnMatch.BATCH_ROWS);
        return batches(snapshot, request, (scan, root) -> match.add(root)).then(Mono.fromSupplier(match::found));
    }

    Mono<Long> count(TableSnapshot snapshot, Optional<String> filter) {
        return datasets.with("count", snapshot.ref(), OptionalLong.of(snapshot.version()),
                (dataset, allocator) -> filter.map(FilterBounds::check)
                        .map(predicate -> InheritedIndexes.usable(snapshot.ref(), allocator) ? dataset.countRows(predicate)
                                : countWithoutIndexes(dataset, allocator, predicate))
                        .orElseGet(dataset::countRows));
    }

    /** Waits (briefly) for scans whose subscriber cancelled from another thread to finish closing. */
    void awaitClosedScans() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (openScans.get() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000L);
        }
    }

    /** Each scanned batch, converted while its Arrow memory is live; Lance resources closed on end, error or cancel. */
    private <T> Flux<T> batches(TableSnapshot snapshot, ScanRequest request,
                                BiFunction<OpenScan, VectorSchemaRoot, T> convert) {
        return Flux.<T, OpenScan>generate(
                        () -> {
                            OpenScan scan = OpenScan.start(datasets, snapshot, request);
                            openScans.incrementAndGet();
                            return scan;
                        },
                        (scan, sink) -> {
                            try {
                                if (scan.reader().loadNextBatch()) {
                                    sink.next(convert.apply(scan, scan.reader().getVectorSchemaRoot()));
                                } else {
                                    sink.complete();
                                }
                            } catch (Exception e) {
                                sink.error(LanceFailures.translate("scan", snapshot.ref(), e));
                            }
                            return scan;
                        },
                        this::closeScan)
                .subscribeOn(datasets.storage().scheduler());
    }

    /** Lance resources are released on a storage thread: inline when already on one, else scheduled there. */
    private void closeScan(OpenScan scan) {
        Runnable release = () -> {
            try {
                scan.close();
            } finally {
                openScans.decrementAndGet();
            }
        };
        if (StorageScheduler.onStorageThread()) {
            release.run();
        } else {
            datasets.storage().schedule(release);
        }
    }

    /** A filtered count that reads no scalar index (see {@link InheritedIndexes}). */
    private static long countWithoutIndexes(Dataset dataset, BufferAllocator allocator, String predicate) {
        String column = dataset.getSchema().getFields().get(0).getName();
        long rows = 0;
        try (LanceScanner scanner = LanceScanner.create(dataset, new ScanOptions.Builder().filter(predicate)
                .columns(List.of(column)).useScalarIndex(false).build(), allocator);
             org.apache.arrow.vector.ipc.ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                rows += reader.getVectorSchemaRoot().getRowCount();
            }
        } catch (Exception e) {
            throw LanceFailures.translate("count", TableRef.main(dataset.uri()), e);
        }
        return rows;
    }

    /** The Lance resources of one streaming scan, closed together on completion, error or cancel. */
    private record OpenScan(TableRef ref, BufferAllocator allocator, Dataset dataset, LanceScanner scanner,
                            ArrowReader reader, List<String> columns, List<String> blobColumns, boolean rowAddress,
                            Runnable releaseDataset) {

        /** The batch's rows on the heap, blob-encoded columns as their bytes (not Lance's descriptors). */
        List<Map<String, Object>> rows(VectorSchemaRoot root) {
            if (blobColumns.isEmpty()) return ArrowRows.read(root);
            try {
                return LanceBlobs.rowsWithBytes(dataset, ref, allocator, root, blobColumns, rowAddress);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        static OpenScan start(LanceDatasets datasets, TableSnapshot snapshot, ScanRequest request) {
            StorageScheduler.requireStorageThread("scan");
            BufferAllocator allocator = datasets.childAllocator("scan");
            Dataset dataset = null;
            LanceScanner scanner = null;
            Runnable release = null;
            try {
                LanceHandles handles = datasets.handles();
                if (handles.covers(snapshot.ref())) {
                    LanceHandles.Handle kept = handles.acquire(snapshot.ref(), snapshot.version());
                    dataset = kept.dataset();
                    release = () -> handles.release(kept);
                } else {
                    dataset = LanceDatasets.open(allocator, snapshot.ref(), OptionalLong.of(snapshot.version()));
                    Dataset own = dataset;
                    release = own::close;
                }
                ScanOptions.Builder options = new ScanOptions.Builder().batchSize(request.batchSize())
                        .useScalarIndex(InheritedIndexes.usable(snapshot.ref(), allocator));
                request.filter().map(FilterBounds::check).ifPresent(options::filter);
                // Lance reads column names as modified UTF-8: only checked identifiers cross.
                request.columns().forEach(SqlLiterals::requireIdentifier);
                if (!request.columns().isEmpty()) options.columns(request.columns());
                request.limit().ifPresent(options::limit);
                if (request.rowAddress()) options.withRowAddress(true);
                request.orderBy().ifPresent(column -> options.setColumnOrderings(List.of(ascending(column))));
                request.fragments().ifPresent(options::fragmentIds);
                // A blob-encoded column scans as descriptors; its bytes are fetched by row id for each batch.
                List<String> blobColumns = LanceBlobs.encodedAmong(dataset.getSchema(), request.columns());
                if (!blobColumns.isEmpty()) options.withRowId(true).withRowAddress(true);
                scanner = dataset.newScan(options.build());
                List<String> columns = new ArrayList<>();
                scanner.schema().getFields().forEach(field -> columns.add(field.getName()));
                if (!blobColumns.isEmpty()) {
                    columns.remove(LanceBlobs.ROW_ID);
                    if (!request.rowAddress()) columns.remove(LanceBlobs.ROW_ADDRESS);
                }
                return new OpenScan(snapshot.ref(), allocator, dataset, scanner, scanner.scanBatches(),
                        List.copyOf(columns), List.copyOf(blobColumns), request.rowAddress(), release);
            } catch (Exception e) {
                closeAll(scanner, release, allocator);
                throw LanceFailures.translate("scan", snapshot.ref(), e);
            }
        }

        private static ColumnOrdering ascending(String column) {
            SqlLiterals.requireIdentifier(column);
            ColumnOrdering.Builder ordering = new ColumnOrdering.Builder();
            ordering.setColumnName(column);
            ordering.setAscending(true);
            ordering.setNullFirst(false);
            return ordering.build();
        }

        void close() {
            try {
                reader.close();
            } catch (Exception ignored) {
                // Closing is best effort; the allocator check still reports leaked buffers.
            }
            closeAll(scanner, releaseDataset, allocator);
        }

        /** {@code releaseDataset} closes a dataset opened for this scan, or hands a kept one back. */
        private static void closeAll(LanceScanner scanner, Runnable releaseDataset, BufferAllocator allocator) {
            try {
                if (scanner != null) scanner.close();
            } catch (Exception ignored) {
                // see close()
            }
            if (releaseDataset != null) releaseDataset.run();
            allocator.close();
        }
    }
}
