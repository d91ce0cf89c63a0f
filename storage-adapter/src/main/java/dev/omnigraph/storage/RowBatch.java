package dev.omnigraph.storage;

import java.util.List;
import java.util.Map;

/**
 * One batch of scanned rows copied onto the heap, so no Arrow memory outlives the scan that produced it.
 * Each row maps column name to a Java value (see {@link ArrowRows} for the type mapping); nulls are kept.
 */
public record RowBatch(List<String> columns, List<Map<String, Object>> rows) {
    public RowBatch {
        columns = List.copyOf(columns);
        rows = List.copyOf(rows);
    }

    public int size() {
        return rows.size();
    }
}
