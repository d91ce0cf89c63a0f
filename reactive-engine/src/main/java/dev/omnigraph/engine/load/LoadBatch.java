package dev.omnigraph.engine.load;

import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.Constraint;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.write.WriteLimits;
import dev.omnigraph.storage.PreparedColumns;
import dev.omnigraph.storage.error.KeyConflict;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import dev.omnigraph.storage.error.ValidationError;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A whole load's records, grouped per table and held in memory so that a replan after a moved head never
 * re-reads the input. Limits are enforced while accumulating, so an oversized input fails before it is all read.
 */
final class LoadBatch {
    private final LoadMode mode;
    private final WriteLimits limits;
    /** Table key → id → physical row (id, [src, dst,] properties). */
    private final Map<String, LinkedHashMap<String, Map<String, Object>>> rowsByTable = new LinkedHashMap<>();
    private final Map<String, Long> bytesByTable = new HashMap<>();
    private final Map<String, List<String>> duplicateIds = new HashMap<>();
    /** Table key → records read for it (duplicates included): each type's {@code entities_loaded}. */
    private final Map<String, Long> recordsByTable = new LinkedHashMap<>();
    /**
     * Table key → its rows encoded column by column as they arrive (while later chunks are still parsed), so that
     * the staging copies columns instead of building Arrow vectors from the row maps; see {@link PreparedColumns}.
     */
    private final Map<String, PreparedColumns.Builder> encoders = new HashMap<>();
    /** Table key → line of each keyed id's first record, to name both lines of a repeated key. */
    private final Map<String, Map<String, Integer>> keyLines = new HashMap<>();

    /** Initial row capacity of a table's encoder (it grows as rows arrive). */
    private static final int ENCODER_ROWS = 512;

    private LoadBatch(LoadMode mode, WriteLimits limits) {
        this.mode = mode;
        this.limits = limits;
    }

    static Mono<LoadBatch> collect(Flux<LoadRecord> records, Catalog catalog, LoadMode mode, WriteLimits limits) {
        return records.reduce(new LoadBatch(mode, limits), (batch, record) -> batch.add(record, catalog))
                .switchIfEmpty(Mono.fromSupplier(() -> new LoadBatch(mode, limits)))
                .doOnNext(LoadBatch::requireNoDuplicates)
                .doOnNext(LoadBatch::attachEncoded);
    }

    /** Hands each table's encoded columns to its first row, where the staging finds them. */
    private void attachEncoded() {
        encoders.forEach((tableKey, encoder) -> {
            PreparedColumns encoded = encoder.build();
            LinkedHashMap<String, Map<String, Object>> rows = rowsByTable.get(tableKey);
            if (encoded != null && rows != null && !rows.isEmpty() && encoded.rowCount() == rows.size()
                    && rows.values().iterator().next() instanceof LoadRow first) {
                first.prepared(encoded);
            }
        });
        encoders.clear();
    }

    private LoadBatch add(LoadRecord record, Catalog catalog) {
        LoadRow row = new LoadRow(record);
        CatalogTable table;
        if (record instanceof LoadRecord.EdgeRecord edge) {
            table = catalog.edge(edge.edgeTypeName()).orElseThrow();
        } else {
            NodeTable node = catalog.node(record.typeName()).orElseThrow();
            table = node;
            if (mode != LoadMode.APPEND) { // append reports a repeated id as a key conflict instead, below
                node.type().key().ifPresent(key -> requireKeyOnce(node, key, record));
            }
        }
        String tableKey = table.tableKey();
        recordsByTable.merge(tableKey, 1L, Long::sum);
        LinkedHashMap<String, Map<String, Object>> rows = rowsByTable.computeIfAbsent(tableKey, key -> new LinkedHashMap<>());
        Map<String, Object> previous = rows.put(record.id(), row);
        PreparedColumns.Builder encoder = encoders.computeIfAbsent(tableKey,
                key -> PreparedColumns.builder(table.arrowSchema(), ENCODER_ROWS));
        if (previous == null) {
            encoder.add(row);
        } else {
            encoder.abandon(); // the order changes (last occurrence last): left to the row maps
            rows.remove(record.id()); // re-insert so the last occurrence keeps its place last
            rows.put(record.id(), row);
            if (mode == LoadMode.APPEND) {
                duplicateIds.computeIfAbsent(record.typeName(), key -> new ArrayList<>()).add(record.id());
            }
        }
        if (mode != LoadMode.OVERWRITE && rows.size() > limits.maxEntitiesPerTable()) {
            throw new ResourceLimitExceeded("entities for " + tableKey + " in one load (line " + record.line() + ")",
                    limits.maxEntitiesPerTable(), rows.size(), "split the file into chunks of at most "
                    + limits.maxEntitiesPerTable() + " entities per type; each chunk is its own commit");
        }
        long bytes = bytesByTable.merge(tableKey, estimate(row), Long::sum);
        if (bytes > limits.maxArrowBytesPerTable()) {
            throw new ResourceLimitExceeded("estimated Arrow bytes for " + tableKey + " in one load (line " + record.line() + ")",
                    limits.maxArrowBytesPerTable(), bytes, "split the file into smaller chunks; each chunk is its own commit");
        }
        return this;
    }

    /**
     * As upstream, a {@code @key} value twice in one merge or overwrite input is a {@code @unique} violation of the
     * key, not last-wins (append reports it as a key conflict, below). The whole load fails; nothing is written.
     */
    private void requireKeyOnce(NodeTable node, Constraint.Key key, LoadRecord record) {
        Integer first = keyLines.computeIfAbsent(node.tableKey(), k -> new HashMap<>()).putIfAbsent(record.id(), record.line());
        if (first != null) {
            String typeName = node.type().name();
            String props = String.join(", ", key.properties());
            throw new ValidationError(typeName, String.join(",", key.properties()), record.id(), typeName + " "
                    + record.id() + ": @unique(" + props + ") violated: @key value '" + record.id() + "' appears on line "
                    + first + " and again on line " + record.line() + " of one " + mode.name().toLowerCase(java.util.Locale.ROOT)
                    + " load");
        }
    }

    private static long estimate(Map<String, Object> row) {
        return dev.omnigraph.engine.write.ChangeEstimates.arrowBytes(List.of(row));
    }

    /** Append is strict: an id twice in one input is a key conflict too. */
    private void requireNoDuplicates() {
        duplicateIds.forEach((type, ids) -> {
            throw new KeyConflict(type, ids);
        });
    }

    Map<String, LinkedHashMap<String, Map<String, Object>>> rowsByTable() {
        return rowsByTable;
    }

    Map<String, Long> recordsByTable() {
        return recordsByTable;
    }
}
