package dev.omnigraph.engine.mutation;

import dev.omnigraph.engine.query.CompareOp;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import dev.omnigraph.storage.SqlLiterals;
import java.time.LocalDate;
import java.util.Map;
import java.util.Optional;

/**
 * One resolved mutation predicate ({@code column op value}), evaluable both ways with identical results: as a
 * Lance SQL filter over committed rows (where the value type allows it) and in Java over pending rows.
 * NULL never matches, on either side.
 */
record RowPredicate(String column, CompareOp op, Object value, PropertyType type) {

    boolean matches(Map<String, Object> row) {
        Object actual = row.get(column);
        if (actual == null || value == null) {
            return false;
        }
        int order = compare(actual, value);
        return switch (op) {
            case EQ -> order == 0;
            case NE -> order != 0;
            case LT -> order < 0;
            case LE -> order <= 0;
            case GT -> order > 0;
            case GE -> order >= 0;
            default -> throw new IllegalStateException("mutation predicates compare with = != < <= > >=, not " + op);
        };
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private int compare(Object actual, Object expected) {
        if (isUnsigned64() && actual instanceof Long a && expected instanceof Long b) {
            return Long.compareUnsigned(a, b);
        }
        if (actual instanceof Number a && expected instanceof Number b && actual.getClass() != expected.getClass()) {
            return Double.compare(a.doubleValue(), b.doubleValue());
        }
        return ((Comparable) actual).compareTo(expected);
    }

    private boolean isUnsigned64() {
        return type instanceof PropertyType.Scalar scalar && scalar.kind() == ScalarKind.U64;
    }

    /**
     * The same predicate as Lance SQL, when its value has an exact SQL spelling; empty otherwise (the caller then
     * scans and filters in Java). A null value matches nothing: {@code false}.
     */
    Optional<String> sql() {
        SqlLiterals.requireIdentifier(column);
        if (value == null) {
            return Optional.of("false");
        }
        String literal;
        if (value instanceof String text) {
            if (!SqlLiterals.pushable(text)) {
                return Optional.empty(); // too long to hand to the native parser: compare in Java
            }
            literal = SqlLiterals.quote(text);
        } else if (value instanceof Boolean || value instanceof Integer
                || (value instanceof Long && !isUnsigned64())) {
            literal = value.toString();
        } else if (value instanceof LocalDate date) {
            literal = SqlLiterals.date(date);
        } else {
            return Optional.empty(); // floats, DateTime, unsigned 64-bit, lists: compare in Java
        }
        if (op.isOrdering() || op == CompareOp.EQ || op == CompareOp.NE) {
            // NE must not match NULL; SQL's three-valued logic already excludes NULL rows for every operator.
            return Optional.of(SqlLiterals.compare(column, SqlLiterals.Comparison.valueOf(op.name()), literal));
        }
        throw new IllegalStateException("unsupported mutation operator " + op);
    }
}
