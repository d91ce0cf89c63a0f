package dev.omnigraph.engine.write;

import dev.omnigraph.storage.error.ResourceLimitExceeded;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;

/** Enforces {@link WriteLimits} on a change set before anything is staged. */
final class WriteLimitCheck {
    private WriteLimitCheck() {
    }

    static void enforce(ChangeSet changes, WriteLimits limits) {
        for (TableChange change : changes.changes()) {
            boolean entityCapped = change.kind() == TableChange.Kind.INSERT || change.kind() == TableChange.Kind.UPSERT;
            if (entityCapped && change.rows().size() > limits.maxEntitiesPerTable()) {
                throw new ResourceLimitExceeded("entities written to " + change.tableKey() + " in one commit",
                        limits.maxEntitiesPerTable(), change.rows().size(),
                        "split the input into chunks of at most " + limits.maxEntitiesPerTable() + " entities per type");
            }
            long bytes = estimateArrowBytes(change.rows());
            if (bytes > limits.maxArrowBytesPerTable()) {
                throw new ResourceLimitExceeded("estimated Arrow bytes staged for " + change.tableKey(),
                        limits.maxArrowBytesPerTable(), bytes, "split the input into smaller chunks, one commit each");
            }
        }
    }

    /** A close upper estimate of the Arrow memory the rows occupy (values plus offsets and validity). */
    static long estimateArrowBytes(List<Map<String, Object>> rows) {
        long total = 0;
        for (Map<String, Object> row : rows) {
            for (Object value : row.values()) {
                total += 1 + sizeOf(value);
            }
        }
        return total;
    }

    private static long sizeOf(Object value) {
        if (value == null) return 0;
        if (value instanceof String text) return 4L + text.length() * 3L / 2;
        if (value instanceof Boolean) return 1;
        if (value instanceof Integer || value instanceof Float || value instanceof LocalDate) return 4;
        if (value instanceof Long || value instanceof Double || value instanceof Instant) return 8;
        if (value instanceof List<?> items) {
            long sum = 4;
            for (Object item : items) sum += 1 + sizeOf(item);
            return sum;
        }
        return 8;
    }
}
