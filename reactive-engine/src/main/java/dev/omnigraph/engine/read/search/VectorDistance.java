package dev.omnigraph.engine.read.search;

import java.util.List;

/** The distance of {@code nearest}: squared Euclidean (L2) distance, as Lance's {@code _distance} for metric L2. */
public final class VectorDistance {
    private VectorDistance() {}

    /** Null when the row has no vector. Both vectors have the checked dimension. */
    public static Double squaredL2(List<?> row, float[] query) {
        if (row == null) return null;
        double sum = 0;
        for (int i = 0; i < query.length; i++) {
            double d = ((Number) row.get(i)).floatValue() - (double) query[i];
            sum += d * d;
        }
        return sum;
    }

    public static float[] toArray(List<?> vector) {
        float[] out = new float[vector.size()];
        for (int i = 0; i < out.length; i++) out[i] = ((Number) vector.get(i)).floatValue();
        return out;
    }
}
