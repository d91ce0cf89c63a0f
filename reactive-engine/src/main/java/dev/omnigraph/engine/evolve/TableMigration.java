package dev.omnigraph.engine.evolve;


import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.EdgeTable;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How one accepted table becomes a table of the target schema (same stable identity): its accepted key, the
 * target table, each target column's source, and whether its rows must be rewritten (the physical schema
 * changed) or re-checked (a new rule applies to them).
 */
record TableMigration(String acceptedKey, CatalogTable target, Map<String, ColumnSource> columns, boolean rewrite,
                      boolean validate) {
    TableMigration {
        columns = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(columns));
    }

    boolean needsRows() {
        return rewrite || validate;
    }

    /** The row as the target table stores it. */
    Map<String, Object> migrate(Map<String, Object> acceptedRow) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", acceptedRow.get("id"));
        if (target instanceof EdgeTable) {
            row.put("src", acceptedRow.get("src"));
            row.put("dst", acceptedRow.get("dst"));
        }
        columns.forEach((name, source) -> row.put(name, source.valueFrom(acceptedRow)));
        return row;
    }
}
