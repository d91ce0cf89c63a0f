package dev.omnigraph.engine.read;

import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Rough on-heap sizes of scanned values (64-bit JVM, compressed references), for the query memory budget. They
 * err on the large side: the budget must trip before the heap does, not after.
 */
final class HeapEstimate {
    /** A map's own cost: object, table and load-factor slack. */
    private static final long MAP = 64;
    /** Per map entry: entry node plus table slot. */
    private static final long ENTRY = 40;
    /** A boxed number, date or instant. */
    private static final long BOX = 24;

    private HeapEstimate() {}

    /** One solution array of {@code slots} references. */
    static long solution(int slots) {
        return 16 + 4L * slots + 8; // header, references, alignment slack
    }

    /**
     * A projected result row: its list, and the map of each whole node it returns. The values themselves are
     * shared with the scanned rows, which are charged already.
     */
    static long projected(List<Object> row) {
        long total = 32 + 8L * row.size();
        for (Object v : row) if (v instanceof Map<?, ?> m) total += MAP + ENTRY * m.size();
        return total;
    }

    static long rows(List<Map<String, Object>> rows) {
        long total = 0;
        for (Map<String, Object> row : rows) total += value(row);
        return total;
    }

    static long value(Object v) {
        if (v == null || v instanceof Boolean) return 0;
        if (v instanceof String s) return 48 + 2L * s.length();
        if (v instanceof Map<?, ?> m) {
            long total = MAP + ENTRY * m.size();
            for (Object e : m.values()) total += value(e);
            return total;
        }
        if (v instanceof Collection<?> c) {
            long total = 32 + 8L * c.size();
            for (Object e : c) total += value(e);
            return total;
        }
        if (v instanceof byte[] b) return 16 + b.length;
        if (v instanceof float[] f) return 16 + 4L * f.length;
        if (v instanceof double[] d) return 16 + 8L * d.length;
        return BOX;
    }
}
