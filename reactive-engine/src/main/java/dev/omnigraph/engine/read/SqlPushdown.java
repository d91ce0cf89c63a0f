package dev.omnigraph.engine.read;

import dev.omnigraph.engine.query.CompareOp;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import dev.omnigraph.storage.SqlLiterals;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;

/**
 * Lance SQL for single-variable filters of the form {@code $v.prop op constant}. Only combinations whose SQL
 * meaning provably matches the Java predicate are emitted: Lance coerces a literal to the column's type (and fails
 * the scan when it cannot), so integers are pushed only into integer columns that can hold them, floats only into
 * F64, and DateTime, U64, F32 and non-String lists stay in Java, as do literals longer than
 * {@link SqlLiterals#MAX_PUSHED_LITERAL_CHARS}. All SQL text comes from {@link SqlLiterals}.
 */
final class SqlPushdown {
    private SqlPushdown() {}

    /** The fragment for {@code l op r}, or null when it is not pushable. */
    static String sql(CompareOp op, Predicates.Compiled l, Predicates.Compiled r) {
        if (l.ref() != null && r.constant()) return sql(op, l, r.value());
        if (r.ref() != null && l.constant()) {
            CompareOp flipped = switch (op) {
                case EQ, NE -> op;
                case LT -> CompareOp.GT;
                case LE -> CompareOp.GE;
                case GT -> CompareOp.LT;
                case GE -> CompareOp.LE;
                case CONTAINS, STARTS_WITH -> null;
            };
            if (flipped != null) return sql(flipped, r, l.value());
            if (op == CompareOp.CONTAINS && l.value() instanceof List<?> items && isStringLike(r.ref().property().type()))
                return inStrings(r.ref().property().name(), items);
        }
        return null;
    }

    private static String sql(CompareOp op, Predicates.Compiled prop, Object value) {
        if (value == null) return "false"; // NULL never matches
        if (value instanceof String s && !SqlLiterals.pushable(s)) return null;
        PropertyType type = prop.ref().property().type();
        String col = prop.ref().property().name();
        switch (op) {
            case STARTS_WITH -> {
                return isStringLike(type) && value instanceof String s ? SqlLiterals.call("starts_with", col, SqlLiterals.quote(s)) : null;
            }
            case CONTAINS -> {
                if (!(value instanceof String s)) return null;
                if (type instanceof PropertyType.ListOf l && l.element() == ScalarKind.STRING)
                    return SqlLiterals.call("array_has", col, SqlLiterals.quote(s));
                // An empty needle is a substring of everything; leave that corner to Java.
                if (isStringLike(type) && !s.isEmpty()) return SqlLiterals.call("contains", col, SqlLiterals.quote(s));
                return null;
            }
            default -> {
                String literal = literal(type, value, prop.unsigned());
                return literal == null ? null : SqlLiterals.compare(col, SqlLiterals.Comparison.valueOf(op.name()), literal);
            }
        }
    }

    private static String inStrings(String column, List<?> items) {
        List<String> values = new java.util.ArrayList<>(items.size());
        for (Object item : items) {
            if (!(item instanceof String s) || !SqlLiterals.pushable(s)) return null;
            values.add(s);
        }
        return SqlLiterals.inList(column, values);
    }

    private static boolean isStringLike(PropertyType t) {
        return t instanceof PropertyType.EnumOf || t instanceof PropertyType.Scalar s && s.kind() == ScalarKind.STRING;
    }

    /** The SQL literal of {@code value} for a column of {@code type}, or null when Lance would compare differently. */
    private static String literal(PropertyType type, Object value, boolean valueUnsigned) {
        if (isStringLike(type)) return value instanceof String s ? SqlLiterals.quote(s) : null;
        if (!(type instanceof PropertyType.Scalar scalar)) return null;
        return switch (scalar.kind()) {
            case BOOL -> value instanceof Boolean b ? (b ? "TRUE" : "FALSE") : null;
            case I32, I64, U32 -> {
                if (!(value instanceof Integer || value instanceof Long) || valueUnsigned && ((Number) value).longValue() < 0)
                    yield null;
                long v = ((Number) value).longValue();
                boolean fits = switch (scalar.kind()) {
                    case I32 -> v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE;
                    case U32 -> v >= 0 && v <= 0xFFFF_FFFFL;
                    default -> true;
                };
                yield fits ? Long.toString(v) : null;
            }
            case F64 -> value instanceof Double d ? BigDecimal.valueOf(d).toPlainString() : null;
            case DATE -> value instanceof LocalDate d && d.getYear() >= 1 && d.getYear() <= 9999
                    ? SqlLiterals.date(d) : null;
            default -> null;
        };
    }
}
