package dev.omnigraph.engine.query;

import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * Conversion of caller and engine values into the engine Java value of a declared type: String, Boolean,
 * Integer (I32), Long (I64, U32, U64 as unsigned bits), Float (F32), Double (F64), LocalDate (Date), Instant
 * (DateTime, ms precision), List (lists) and List&lt;Float&gt; (vectors). It accepts what Jackson delivers from
 * JSON (Integer/Long/BigInteger/Double/BigDecimal, String, Boolean, List) as well as engine values, so the same
 * rules serve parameter binding and the coercion of a bound parameter into a property.
 */
public final class Values {
    private Values() {}

    private static final BigInteger U32_MAX = BigInteger.valueOf(0xFFFF_FFFFL);
    private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    /** Why a value does not fit a type; callers prefix it with what was being converted. */
    public static final class Mismatch extends RuntimeException {
        /** Where in a query the offending literal (or list element) is; null outside the compiler. */
        final Ast.Pos pos;

        Mismatch(String message) {
            this(message, null);
        }

        Mismatch(String message, Ast.Pos pos) {
            super(message, null, false, false);
            this.pos = pos;
        }
    }

    /**
     * Converts {@code value} into the engine value of {@code target}; null stays null.
     *
     * @param unsignedLongs the value comes from a U64 source, so a Long is read as unsigned bits
     * @throws Mismatch with a message like {@code expected I64, got string "x"}
     */
    public static Object coerce(Object value, PropertyType target, boolean unsignedLongs) {
        if (value == null) return null;
        if (target instanceof PropertyType.Scalar s) return scalar(value, s.kind(), unsignedLongs, target);
        if (target instanceof PropertyType.EnumOf e) {
            if (!(value instanceof String str)) throw mismatch(target, value);
            if (!e.values().contains(str))
                throw new Mismatch("value \"" + str + "\" is not one of " + target.spelling());
            return str;
        }
        if (target instanceof PropertyType.ListOf l) {
            if (!(value instanceof List<?> items)) throw mismatch(target, value);
            List<Object> out = new ArrayList<>(items.size());
            for (int i = 0; i < items.size(); i++) {
                Object item = items.get(i);
                if (item == null) throw new Mismatch("element " + i + " of " + target.spelling() + " is null");
                try {
                    out.add(scalar(item, l.element(), unsignedLongs, new PropertyType.Scalar(l.element())));
                } catch (Mismatch m) {
                    throw new Mismatch("element " + i + ": " + m.getMessage());
                }
            }
            return java.util.Collections.unmodifiableList(out);
        }
        PropertyType.VectorOf v = (PropertyType.VectorOf) target;
        if (!(value instanceof List<?> items)) throw mismatch(target, value);
        if (items.size() != v.dim())
            throw new Mismatch("expected " + target.spelling() + ", got a list of " + items.size() + " numbers");
        List<Float> out = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            Object item = items.get(i);
            if (!(item instanceof Number)) throw new Mismatch("element " + i + " of " + target.spelling()
                    + ": expected a number, got " + describe(item));
            out.add((Float) scalar(item, ScalarKind.F32, false, target));
        }
        return java.util.Collections.unmodifiableList(out);
    }

    private static Object scalar(Object value, ScalarKind kind, boolean unsignedLongs, PropertyType shown) {
        switch (kind) {
            case STRING -> {
                if (value instanceof String) return value;
            }
            case BLOB -> {
                if (value instanceof byte[]) return value;
                if (value instanceof String s) {
                    try {
                        return dev.omnigraph.engine.schema.BlobText.decode(s);
                    } catch (IllegalArgumentException e) {
                        throw new Mismatch(e.getMessage());
                    }
                }
            }
            case BOOL -> {
                if (value instanceof Boolean) return value;
            }
            case I32, I64, U32, U64 -> {
                BigInteger n = integral(value, unsignedLongs);
                if (n == null) break;
                BigInteger min = switch (kind) {
                    case I32 -> BigInteger.valueOf(Integer.MIN_VALUE);
                    case I64 -> BigInteger.valueOf(Long.MIN_VALUE);
                    default -> BigInteger.ZERO;
                };
                BigInteger max = switch (kind) {
                    case I32 -> BigInteger.valueOf(Integer.MAX_VALUE);
                    case I64 -> BigInteger.valueOf(Long.MAX_VALUE);
                    case U32 -> U32_MAX;
                    default -> U64_MAX;
                };
                if (n.compareTo(min) < 0 || n.compareTo(max) > 0)
                    throw new Mismatch("expected " + shown.spelling() + ", got " + describe(value) + " (out of range)");
                return kind == ScalarKind.I32 ? (Object) n.intValue() : (Object) n.longValue();
            }
            case F32, F64 -> {
                if (!(value instanceof Number num)) break;
                double d = unsignedLongs && value instanceof Long l
                        ? new BigDecimal(new BigInteger(Long.toUnsignedString(l))).doubleValue() : num.doubleValue();
                if (Double.isNaN(d) || Double.isInfinite(d) || (kind == ScalarKind.F32 && Math.abs(d) > Float.MAX_VALUE))
                    throw new Mismatch("expected " + shown.spelling() + ", got " + describe(value) + " (not a finite "
                            + kind.spelling() + ")");
                return kind == ScalarKind.F32 ? (Object) (float) d : (Object) d;
            }
            case DATE -> {
                if (value instanceof LocalDate) return value;
                if (value instanceof String s) {
                    try {
                        return parseDate(s);
                    } catch (IllegalArgumentException e) {
                        throw new Mismatch("expected Date, got " + describe(value) + " (" + e.getMessage() + ")");
                    }
                }
                BigInteger n = integral(value, false);
                if (n == null) break;
                try {
                    return LocalDate.ofEpochDay(n.longValueExact());
                } catch (ArithmeticException | DateTimeException e) {
                    throw new Mismatch("expected Date, got " + describe(value) + " (out of range)");
                }
            }
            case DATETIME -> {
                if (value instanceof Instant i) return i.truncatedTo(ChronoUnit.MILLIS);
                if (value instanceof String s) {
                    try {
                        return parseDateTime(s);
                    } catch (IllegalArgumentException e) {
                        throw new Mismatch("expected DateTime, got " + describe(value) + " (" + e.getMessage() + ")");
                    }
                }
                BigInteger n = integral(value, false);
                if (n == null) break;
                try {
                    return Instant.ofEpochMilli(n.longValueExact());
                } catch (ArithmeticException | DateTimeException e) {
                    throw new Mismatch("expected DateTime, got " + describe(value) + " (out of range)");
                }
            }
        }
        throw mismatch(shown, value);
    }

    /** The value as an integer when it is one (floats, even integral ones, are not). */
    private static BigInteger integral(Object value, boolean unsignedLongs) {
        if (value instanceof Long l) return unsignedLongs ? new BigInteger(Long.toUnsignedString(l)) : BigInteger.valueOf(l);
        if (value instanceof Integer || value instanceof Short || value instanceof Byte)
            return BigInteger.valueOf(((Number) value).longValue());
        if (value instanceof BigInteger b) return b;
        if (value instanceof BigDecimal d) {
            try {
                return d.toBigIntegerExact();
            } catch (ArithmeticException e) {
                return null;
            }
        }
        return null;
    }

    private static Mismatch mismatch(PropertyType target, Object value) {
        return new Mismatch("expected " + target.spelling() + ", got " + describe(value));
    }

    /** How a caller value looks in an error message: {@code string "x"}, {@code integer 3}, {@code number 1.5}, …. */
    public static String describe(Object value) {
        if (value == null) return "null";
        if (value instanceof String s) return "string \"" + s + "\"";
        if (value instanceof Boolean b) return "boolean " + b;
        if (value instanceof Integer || value instanceof Long || value instanceof BigInteger
                || value instanceof Short || value instanceof Byte) return "integer " + value;
        if (value instanceof BigDecimal d) return "number " + d.toPlainString();
        if (value instanceof Number n) return "number " + n;
        if (value instanceof List<?> l) return "list of " + l.size() + " element" + (l.size() == 1 ? "" : "s");
        if (value instanceof java.util.Map<?, ?>) return "object";
        if (value instanceof LocalDate d) return "date " + d;
        if (value instanceof Instant i) return "datetime " + i;
        return value.getClass().getSimpleName();
    }

    /** Strict {@code YYYY-MM-DD}. */
    public static LocalDate parseDate(String text) {
        try {
            return LocalDate.parse(text, DateTimeFormatter.ISO_LOCAL_DATE);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("expected YYYY-MM-DD");
        }
    }

    /**
     * ISO-8601 / RFC 3339 date-time, truncated to milliseconds. With {@code Z} or an offset; a date-time without
     * a zone is taken as UTC.
     */
    public static Instant parseDateTime(String text) {
        try {
            return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant().truncatedTo(ChronoUnit.MILLIS);
        } catch (DateTimeException e) {
            try {
                return LocalDateTime.parse(text, DateTimeFormatter.ISO_LOCAL_DATE_TIME).toInstant(ZoneOffset.UTC)
                        .truncatedTo(ChronoUnit.MILLIS);
            } catch (DateTimeException e2) {
                throw new IllegalArgumentException("expected an ISO-8601 date-time such as 2024-03-01T12:00:00Z");
            }
        }
    }
}
