package dev.omnigraph.engine.schema;

import java.util.List;
import java.util.TreeSet;

/**
 * The declared type of a property, without nullability (that lives on {@link Property}).
 * Enum values are kept sorted and de-duplicated so that two spellings of the same set compare equal.
 */
public sealed interface PropertyType {

    /** Human-readable {@code .pg} spelling, e.g. {@code [I64]}, {@code Vector(3)}, {@code enum(a, b)}. */
    String spelling();

    record Scalar(ScalarKind kind) implements PropertyType {
        public Scalar {
            if (kind == null) throw new IllegalArgumentException("kind");
        }

        @Override
        public String spelling() {
            return kind.spelling();
        }
    }

    record ListOf(ScalarKind element) implements PropertyType {
        public ListOf {
            if (element == null) throw new IllegalArgumentException("element");
        }

        @Override
        public String spelling() {
            return "[" + element.spelling() + "]";
        }
    }

    /** Fixed-size Float32 vector; 1 ≤ dim ≤ 2³¹−1 (Arrow's FixedSizeList bound). */
    record VectorOf(int dim) implements PropertyType {
        public VectorOf {
            if (dim < 1) throw new IllegalArgumentException("vector dimension must be >= 1: " + dim);
        }

        @Override
        public String spelling() {
            return "Vector(" + dim + ")";
        }
    }

    /** Stored as Utf8; values sorted and unique. */
    record EnumOf(List<String> values) implements PropertyType {
        public EnumOf {
            if (values == null || values.isEmpty()) throw new IllegalArgumentException("enum needs at least one value");
            values = List.copyOf(new TreeSet<>(values));
        }

        @Override
        public String spelling() {
            return "enum(" + String.join(", ", values) + ")";
        }
    }

    static PropertyType scalar(ScalarKind kind) {
        return new Scalar(kind);
    }
}
