package dev.omnigraph.storage;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Matches the batches of a one-column scan against a predicate on strings ({@link TableStorage#keysAmong}):
 * reads the Utf8 vector directly, so a key check costs one string per committed row, not one row map, and none at
 * all for a {@link KeysWanted} set (its values are matched as bytes in place).
 * Not thread-safe: one per scan, fed on the scan's thread.
 */
final class KeyColumnMatch {
    /** Rows per scanned batch: a key column is narrow, and fewer batches mean fewer Arrow imports. */
    static final int BATCH_ROWS = 16_384;

    private final String column;
    private final Predicate<String> wanted;
    private final Set<String> found = new HashSet<>();

    KeyColumnMatch(String column, Predicate<String> wanted) {
        this.column = column;
        this.wanted = wanted;
    }

    /** Adds the batch's wanted values to those found; answers the batch's row count. */
    int add(VectorSchemaRoot batch) {
        FieldVector vector = batch.getVector(column);
        if (!(vector instanceof VarCharVector strings)) {
            throw new IllegalArgumentException("key column " + column + " is not a string column: "
                    + (vector == null ? "absent" : vector.getField().getType()));
        }
        int rows = batch.getRowCount();
        if (wanted instanceof KeysWanted keys) {
            ArrowBuf data = strings.getDataBuffer();
            for (int i = 0; i < rows; i++) {
                if (!strings.isNull(i)) {
                    int start = strings.getStartOffset(i);
                    String value = keys.match(data, start, strings.getEndOffset(i) - start);
                    if (value != null) {
                        found.add(value);
                    }
                }
            }
            return rows;
        }
        for (int i = 0; i < rows; i++) {
            if (!strings.isNull(i)) {
                String value = new String(strings.get(i), StandardCharsets.UTF_8);
                if (wanted.test(value)) {
                    found.add(value);
                }
            }
        }
        return rows;
    }

    Set<String> found() {
        return Set.copyOf(found);
    }
}
