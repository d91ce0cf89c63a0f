package dev.omnigraph.engine.diff;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How one row, identified by {@code id}, differs between two pins of a table: an insert carries only
 * {@code after}, a delete only {@code before}, an update both (and they differ). Rows are whole stored rows
 * (every column of that version, nulls kept), as {@link dev.omnigraph.storage.ArrowRows} decodes them.
 */
public record RowChange(ChangeOp op, String id, Optional<Map<String, Object>> before, Optional<Map<String, Object>> after) {
    public RowChange {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(id, "id");
        if (before.isPresent() != (op != ChangeOp.INSERT) || after.isPresent() != (op != ChangeOp.DELETE)) {
            throw new IllegalArgumentException(op + " of " + id + " with before=" + before.isPresent()
                    + " after=" + after.isPresent());
        }
    }

    static RowChange inserted(Map<String, Object> after) {
        return new RowChange(ChangeOp.INSERT, RowValues.id(after), Optional.empty(), Optional.of(after));
    }

    static RowChange deleted(Map<String, Object> before) {
        return new RowChange(ChangeOp.DELETE, RowValues.id(before), Optional.of(before), Optional.empty());
    }

    static RowChange updated(Map<String, Object> before, Map<String, Object> after) {
        return new RowChange(ChangeOp.UPDATE, RowValues.id(after), Optional.of(before), Optional.of(after));
    }
}
