package dev.omnigraph.engine.write;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;

/** The one estimate of how much Arrow memory rows occupy, used by every size limit. */
public final class ChangeEstimates {
    private ChangeEstimates() {
    }

    /** A close upper estimate: values plus offsets and validity. */
    public static long arrowBytes(List<Map<String, Object>> rows) {
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
        if (value instanceof byte[] bytes) return 8L + bytes.length;
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
