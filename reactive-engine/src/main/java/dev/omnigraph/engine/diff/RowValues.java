package dev.omnigraph.engine.diff;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The two comparisons a row delta needs: ids in the order Lance sorts Utf8 (by code point, which is UTF-8 byte
 * order, not Java's UTF-16 {@code compareTo}), and typed full-row equality (byte arrays by content, lists and maps
 * element by element, floats as {@code Float.equals}: NaN equals NaN, -0.0 differs from 0.0).
 */
public final class RowValues {
    static final String ID = "id";

    /** Code-point order, the order of a Lance scan sorted by a Utf8 column. */
    public static final Comparator<String> ID_ORDER = RowValues::compareCodePoints;

    private RowValues() {
    }

    static String id(Map<String, Object> row) {
        Object id = row.get(ID);
        if (!(id instanceof String text)) {
            throw new IllegalStateException("a stored row has no string id: " + row.keySet());
        }
        return text;
    }

    static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) return Integer.compare(ca, cb);
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    public static boolean rowsEqual(Map<String, Object> a, Map<String, Object> b) {
        if (a.size() != b.size()) return false;
        for (Map.Entry<String, Object> entry : a.entrySet()) {
            if (!b.containsKey(entry.getKey()) || !valuesEqual(entry.getValue(), b.get(entry.getKey()))) return false;
        }
        return true;
    }

    static boolean valuesEqual(Object a, Object b) {
        if (a instanceof byte[] x && b instanceof byte[] y) return Arrays.equals(x, y);
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if (x.size() != y.size()) return false;
            Iterator<?> i = x.iterator();
            Iterator<?> j = y.iterator();
            while (i.hasNext()) {
                if (!valuesEqual(i.next(), j.next())) return false;
            }
            return true;
        }
        if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
            if (x.size() != y.size()) return false;
            for (Map.Entry<?, ?> entry : x.entrySet()) {
                if (!y.containsKey(entry.getKey()) || !valuesEqual(entry.getValue(), y.get(entry.getKey()))) return false;
            }
            return true;
        }
        return Objects.equals(a, b);
    }
}
