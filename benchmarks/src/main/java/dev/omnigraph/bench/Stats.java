package dev.omnigraph.bench;

import java.util.Arrays;
import java.util.List;

/** Order statistics of a sample; percentiles by the nearest-rank method (p99 of 10 samples is the maximum). */
public final class Stats {
    private Stats() {
    }

    public static double percentile(List<Double> samples, double p) {
        if (samples.isEmpty()) {
            return Double.NaN;
        }
        double[] sorted = samples.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    public static double median(List<Double> samples) {
        if (samples.isEmpty()) {
            return Double.NaN;
        }
        double[] sorted = samples.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
    }

    public static double min(List<Double> samples) {
        return samples.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    public static double max(List<Double> samples) {
        return samples.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }
}
