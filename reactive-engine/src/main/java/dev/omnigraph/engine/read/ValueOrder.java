package dev.omnigraph.engine.read;

import dev.omnigraph.engine.query.ReadPlan.ResultType;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;

/**
 * Comparison of engine Java values. Numbers compare by value across widths (an I32 property with an F64 literal,
 * a U64 carried as unsigned bits with a signed I64), strings by code point (the order of their UTF-8 bytes, which
 * is what the Lance scan compares, so a pushed-down range and its Java re-check agree), booleans false first,
 * lists element-wise, entities (node maps) by id. Nulls are handled by callers: NULL never matches a filter and
 * sorts first ascending.
 */
final class ValueOrder {
    private ValueOrder() {}

    /** Whether a value of this type carries U64 as unsigned bits in a Long (also for list elements). */
    static boolean unsigned(PropertyType type) {
        return type instanceof PropertyType.Scalar s && s.kind() == ScalarKind.U64
                || type instanceof PropertyType.ListOf l && l.element() == ScalarKind.U64;
    }

    static boolean unsigned(ResultType type) {
        return type instanceof ResultType.Value v && unsigned(v.type());
    }

    /** Compares two non-null values; {@code au}/{@code bu} say whether a Long is U64. */
    static int compare(Object a, boolean au, Object b, boolean bu) {
        if (a instanceof Number x && b instanceof Number y) return compareNumbers(x, au, y, bu);
        if (a instanceof String x && b instanceof String y) return compareStrings(x, y);
        if (a instanceof Boolean x && b instanceof Boolean y) return Boolean.compare(x, y);
        if (a instanceof LocalDate x && b instanceof LocalDate y) return x.compareTo(y);
        if (a instanceof Instant x && b instanceof Instant y) return x.compareTo(y);
        if (a instanceof List<?> x && b instanceof List<?> y) {
            for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
                int c = compareNullable(x.get(i), au, y.get(i), bu);
                if (c != 0) return c;
            }
            return Integer.compare(x.size(), y.size());
        }
        if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y)
            return compareStrings((String) x.get("id"), (String) y.get("id"));
        throw new IllegalArgumentException("cannot compare " + a.getClass().getSimpleName() + " with "
                + b.getClass().getSimpleName());
    }

    /** As {@link #compare}, with null before every value. */
    static int compareNullable(Object a, boolean au, Object b, boolean bu) {
        if (a == null || b == null) return a == null ? (b == null ? 0 : -1) : 1;
        return compare(a, au, b, bu);
    }

    static boolean equal(Object a, boolean au, Object b, boolean bu) {
        return compare(a, au, b, bu) == 0;
    }

    private static boolean floating(Number n) {
        return n instanceof Double || n instanceof Float;
    }

    static int compareNumbers(Number a, boolean au, Number b, boolean bu) {
        boolean af = floating(a);
        boolean bf = floating(b);
        if (!af && !bf) {
            if (!au && !bu) return Long.compare(a.longValue(), b.longValue());
            if (au && bu) return Long.compareUnsigned(a.longValue(), b.longValue());
            return integer(a, au).compareTo(integer(b, bu));
        }
        if (af && bf) {
            double x = a.doubleValue();
            double y = b.doubleValue();
            return x < y ? -1 : x > y ? 1 : 0; // values are finite; -0.0 equals 0.0 as in SQL
        }
        BigDecimal x = af ? new BigDecimal(a.doubleValue()) : new BigDecimal(integer(a, au));
        BigDecimal y = bf ? new BigDecimal(b.doubleValue()) : new BigDecimal(integer(b, bu));
        return x.compareTo(y);
    }

    static BigInteger integer(Number n, boolean unsigned) {
        long v = n.longValue();
        return unsigned && v < 0 ? new BigInteger(Long.toUnsignedString(v)) : BigInteger.valueOf(v);
    }

    /** Code point order, i.e. the byte order of the UTF-8 encodings. */
    static int compareStrings(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x == y) continue;
            if (!Character.isSurrogate(x) && !Character.isSurrogate(y)) return x - y;
            return Integer.compare(a.codePointAt(i), b.codePointAt(i));
        }
        return Integer.compare(a.length(), b.length());
    }
}
