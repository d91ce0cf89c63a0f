package dev.omnigraph.engine.write;

import dev.omnigraph.storage.manifest.TableEntry;
import java.util.List;
import java.util.Map;

/**
 * The complete change one write makes to one table, ready to stage as ONE Lance transaction:
 * {@code INSERT} (strict: every id is new), {@code UPSERT} (replace rows by id, add the rest),
 * {@code DELETE} (by id), {@code OVERWRITE} (the whole table image) or {@code ROW_DELTA} (replace {@code rows} by id
 * and delete {@code deleteIds} in the same transaction: a branch merge's delta on one table).
 */
public record TableChange(TableEntry pin, Kind kind, List<Map<String, Object>> rows, List<String> deleteIds) {
    public enum Kind { INSERT, UPSERT, DELETE, OVERWRITE, ROW_DELTA }

    public TableChange {
        rows = List.copyOf(rows);
        deleteIds = List.copyOf(deleteIds);
    }

    public String tableKey() {
        return pin.tableKey();
    }

    public boolean isNode() {
        return tableKey().startsWith("node:");
    }
}
