package dev.omnigraph.engine.schema;

/** One end of a {@code @range} constraint, kept in the literal's own form (integer or float). */
public sealed interface RangeBound {

    double asDouble();

    record IntBound(long value) implements RangeBound {
        @Override
        public double asDouble() {
            return value;
        }
    }

    record FloatBound(double value) implements RangeBound {
        public FloatBound {
            if (!Double.isFinite(value)) throw new IllegalArgumentException("range bound must be finite");
        }

        @Override
        public double asDouble() {
            return value;
        }
    }
}
