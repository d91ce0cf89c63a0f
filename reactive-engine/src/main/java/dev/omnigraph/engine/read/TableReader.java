package dev.omnigraph.engine.read;

import dev.omnigraph.engine.schema.CatalogTable;
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
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Reads the tables of one pinned manifest state: every table at the version that state publishes, each opened at
 * most once per request. Collected results are handed to the parallel scheduler, so joins, sorts and aggregation
 * never occupy the bounded storage threads.
 */
final class TableReader {
    /** Ids per {@code IN (...)} list of a frontier or id fetch. */
    static final int IN_BATCH = 512;

    private final TableStorage tables;
    private final String root;
    private final ManifestState state;
    private final Map<String, Mono<TableSnapshot>> opened = new ConcurrentHashMap<>();

    TableReader(TableStorage tables, String root, ManifestState state) {
        this.tables = tables;
        this.root = root;
        this.state = state;
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

    Mono<TableSnapshot> snapshot(CatalogTable table) {
        return opened.computeIfAbsent(table.tableKey(), key -> Mono.defer(() -> {
            TableEntry e = entry(table);
            TableRef ref = new TableRef(root + "/" + e.location(), e.lanceBranch());
            return tables.open(ref, OptionalLong.of(e.version()));
        }).cache());
    }

    /** Streams the rows of {@code table} matching {@code where} (all rows when null), honouring demand. */
    Flux<Map<String, Object>> scan(CatalogTable table, String where, List<String> columns, int batchSize) {
        ScanRequest request = ScanRequest.all().withColumns(columns).withBatchSize(batchSize);
        ScanRequest filtered = where == null ? request : request.withFilter(where);
        return snapshot(table).flatMapMany(s -> tables.scan(s, filtered)).concatMapIterable(RowBatch::rows);
    }

    /** Every matching row, collected, continuing on the parallel scheduler. */
    Mono<List<Map<String, Object>>> scanAll(CatalogTable table, String where, List<String> columns) {
        ScanRequest request = ScanRequest.all().withColumns(columns);
        ScanRequest filtered = where == null ? request : request.withFilter(where);
        return snapshot(table).flatMapMany(s -> tables.scan(s, filtered))
                .collect(ArrayList<Map<String, Object>>::new, (acc, batch) -> acc.addAll(batch.rows()))
                .<List<Map<String, Object>>>map(list -> list)
                .publishOn(Schedulers.parallel());
    }

    /**
     * Rows selected by keys: the keys are cut into lists of {@link #IN_BATCH}, {@code where} turns one list into a
     * predicate, and each batch's rows are passed to {@code perBatch} together with that batch (so a row found by
     * two batches can be attributed to the one holding its key).
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
                .concatMap(batch -> scanAll(table, where.apply(batch), columns)
                        .doOnNext(rows -> perBatch.accept(batch, rows)))
                .then();
    }

    @FunctionalInterface
    interface BatchConsumer {
        void accept(List<String> keys, List<Map<String, Object>> rows);
    }
}
