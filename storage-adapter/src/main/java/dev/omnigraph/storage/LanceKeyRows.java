package dev.omnigraph.storage;

import dev.omnigraph.storage.error.StorageFault;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Keyed reads by row id ({@link TableStorage#keyRows}, {@link TableStorage#takeRows}): one key scan, then takes. */
final class LanceKeyRows {
    private static final String ROW_ID = "_rowid";
    private final LanceDatasets datasets;
    /** Key scans running now: an engine builds key rows in the background, so the storage's close waits for them. */
    private final java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();

    LanceKeyRows(LanceDatasets datasets) {
        this.datasets = datasets;
    }

    /** Waits (up to 30 s) for running key scans to release their Arrow memory, before the allocator is closed. */
    void awaitIdle() {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (running.get() > 0 && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
        }
    }

    /** One scan of {@code column} with row ids, fingerprinted in place (no string per row). */
    Mono<KeyRowIndex> keyRows(TableSnapshot snapshot, String column, Optional<List<Integer>> fragments) {
        SqlLiterals.requireIdentifier(column);
        if (fragments.filter(List::isEmpty).isPresent()) {
            return Mono.just(new KeyRowIndex.Builder(0).build()); // no fragment: Lance would read them all
        }
        return datasets.with("keyRows", snapshot.ref(), OptionalLong.of(snapshot.version()), (dataset, allocator) -> {
            ScanOptions.Builder options = new ScanOptions.Builder().columns(List.of(column)).withRowId(true)
                    .batchSize(KeyColumnMatch.BATCH_ROWS);
            fragments.ifPresent(options::fragmentIds);
            KeyRowIndex.Builder index = new KeyRowIndex.Builder((int) Math.min(Integer.MAX_VALUE - 8,
                    Math.max(0, snapshot.rowCount())));
            try (LanceScanner scanner = LanceScanner.create(dataset, options.build(), allocator);
                 ArrowReader reader = scanner.scanBatches()) {
                while (reader.loadNextBatch()) {
                    add(index, reader.getVectorSchemaRoot(), column);
                }
            } catch (StorageFault e) {
                throw e;
            } catch (Exception e) {
                throw LanceFailures.translate("keyRows", snapshot.ref(), e);
            }
            return index.build();
        }).doOnSubscribe(subscribed -> running.incrementAndGet())
                .doFinally(signal -> running.decrementAndGet()); // after the dataset and its allocator closed
    }

    private static void add(KeyRowIndex.Builder index, VectorSchemaRoot batch, String column) {
        if (!(batch.getVector(column) instanceof VarCharVector strings)) {
            throw new StorageFault("key column " + column + " is not a string column", null);
        }
        UInt8Vector ids = (UInt8Vector) batch.getVector(ROW_ID);
        for (int i = 0; i < batch.getRowCount(); i++) {
            if (strings.isNull(i)) continue;
            int start = strings.getStartOffset(i);
            index.add(KeyRowIndex.fingerprint(strings.getDataBuffer(), start, strings.getEndOffset(i) - start), ids.get(i));
        }
    }

    /** Lance's take by row id, projected; refused for blob-encoded columns (their bytes need the scan path). */
    Flux<RowBatch> takeRows(TableSnapshot snapshot, List<Long> rowIds, List<String> columns) {
        if (rowIds.isEmpty()) return Flux.empty();
        columns.forEach(SqlLiterals::requireIdentifier);
        return datasets.with("takeRows", snapshot.ref(), OptionalLong.of(snapshot.version()), (dataset, allocator) -> {
            if (!LanceBlobs.encodedAmong(dataset.getSchema(), columns).isEmpty()) {
                throw new StorageFault("takeRows does not read blob-encoded columns", null);
            }
            List<RowBatch> out = new ArrayList<>();
            take(dataset, snapshot.ref(), rowIds, columns, out);
            return out;
        }).flatMapIterable(batches -> batches);
    }

    /** Lance's take of {@code rowIds} projected to {@code columns}, its batches read onto the heap into {@code out}. */
    static void take(Dataset dataset, TableRef ref, List<Long> rowIds, List<String> columns, List<RowBatch> out) {
        try (ArrowReader reader = dataset.takeRows(rowIds, columns)) {
            while (reader.loadNextBatch()) {
                out.add(new RowBatch(columns, ArrowRows.read(reader.getVectorSchemaRoot())));
            }
        } catch (java.io.IOException e) {
            throw LanceFailures.translate("takeRows", ref, e);
        }
    }
}
