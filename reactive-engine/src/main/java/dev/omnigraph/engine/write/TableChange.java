package dev.omnigraph.engine.write;

import dev.omnigraph.storage.manifest.TableEntry;
import java.util.List;
import java.util.Map;

/**
 * The complete change one write makes to one table, ready to stage as ONE Lance transaction:
 * {@code INSERT} (strict: every id is new), {@code UPSERT} (replace rows by id, add the rest),
 * {@code DELETE} (by id), {@code OVERWRITE} (the whole table image) or {@code ROW_DELTA} (replace {@code rows} by id
 * and delete {@code deleteIds} in the same transaction: a branch merge's delta on one table) or {@code APPEND} (a
 * merge's rows whose ids are proven absent from the target: appended with no lookup). A merge's {@code ROW_DELTA}
 * and {@code APPEND} commit as chains of chunks when above one transaction's bound ({@link ChunkChain}).
 */
public record TableChange(TableEntry pin, Kind kind, List<Map<String, Object>> rows, List<String> deleteIds) {
    public enum Kind { INSERT, UPSERT, DELETE, OVERWRITE, ROW_DELTA, APPEND }

    public TableChange {
        rows = List.copyOf(rows);
        deleteIds = List.copyOf(deleteIds);
    }

    public String tableKey() {
        return pin.tableKey();
    }

    /** A merge's change: committed as a chain of chunks when it needs more than one transaction. */
    public boolean chunkable() {
        return kind == Kind.ROW_DELTA || kind == Kind.APPEND;
    }

    public boolean isNode() {
        return tableKey().startsWith("node:");
    }
}
