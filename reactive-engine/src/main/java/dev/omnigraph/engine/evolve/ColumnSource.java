package dev.omnigraph.engine.evolve;

import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import java.util.Map;

/** Where a column of a rewritten table takes its values from: an accepted column (maybe converted) or a constant. */
sealed interface ColumnSource {
    Object valueFrom(Map<String, Object> oldRow);

    /** The accepted column {@code name}, widened to {@code to} when the type changed. */
    record FromColumn(String name, PropertyType to) implements ColumnSource {
        @Override
        public Object valueFrom(Map<String, Object> oldRow) {
            Object value = oldRow.get(name);
            if (value == null || !(to instanceof PropertyType.Scalar scalar)) {
                return value;
            }
            return convert(value, scalar.kind());
        }

        private static Object convert(Object value, ScalarKind kind) {
            if (value instanceof Number number) {
                return switch (kind) {
                    case I64, U64 -> number.longValue();
                    case F64 -> number.doubleValue();
                    case F32 -> number.floatValue();
                    default -> value;
                };
            }
            return value;
        }
    }

    /** The same value for every row: {@code null} for a new nullable property, or its {@code @default}. */
    record Constant(Object value) implements ColumnSource {
        @Override
        public Object valueFrom(Map<String, Object> oldRow) {
            return value;
        }
    }
}
