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
 * F64, and DateTime, U64, F32 and non-String lists stay in Java. Identifiers are back-quoted: Lance folds bare
 * identifiers to lower case.
 */
final class SqlPushdown {
    private SqlPushdown() {}

    static String column(String name) {
        return "`" + SqlLiterals.requireIdentifier(name) + "`";
    }

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
        PropertyType type = prop.ref().property().type();
        String col = column(prop.ref().property().name());
        switch (op) {
            case STARTS_WITH -> {
                return isStringLike(type) && value instanceof String s ? "starts_with(" + col + ", " + SqlLiterals.quote(s) + ")" : null;
            }
            case CONTAINS -> {
                if (!(value instanceof String s)) return null;
                if (type instanceof PropertyType.ListOf l && l.element() == ScalarKind.STRING)
                    return "array_has(" + col + ", " + SqlLiterals.quote(s) + ")";
                // An empty needle is a substring of everything; leave that corner to Java.
                if (isStringLike(type) && !s.isEmpty()) return "contains(" + col + ", " + SqlLiterals.quote(s) + ")";
                return null;
            }
            default -> {
                String literal = literal(type, value, prop.unsigned());
                if (literal == null) return null;
                String symbol = switch (op) {
                    case EQ -> "=";
                    case NE -> "<>";
                    case LT -> "<";
                    case LE -> "<=";
                    case GT -> ">";
                    default -> ">=";
                };
                return col + " " + symbol + " " + literal;
            }
        }
    }

    private static String inStrings(String column, List<?> items) {
        if (items.isEmpty()) return "false";
        StringBuilder sb = new StringBuilder(column(column)).append(" IN (");
        for (int i = 0; i < items.size(); i++) {
            if (!(items.get(i) instanceof String s)) return null;
            sb.append(i == 0 ? "" : ", ").append(SqlLiterals.quote(s));
        }
        return sb.append(')').toString();
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
                    ? "DATE '" + d + "'" : null;
            default -> null;
        };
    }
}
