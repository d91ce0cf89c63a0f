package dev.omnigraph.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One row of a scenario table: measured latencies in milliseconds (one per repetition), the storage calls those
 * repetitions made, and which row of the same run it is compared with. Thread-safe for concurrent recording.
 */
public final class Series {
    private final String name;
    private final String compareTo;
    private final List<Double> samplesMs = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, Long> calls = new LinkedHashMap<>();
    private final Map<String, Long> storageNanos = new LinkedHashMap<>();
    private long operations;
    private final List<String> notes = Collections.synchronizedList(new ArrayList<>());

    /** @param compareTo the row whose median this row's ratio is taken against; null for a baseline row */
    public Series(String name, String compareTo) {
        this.name = name;
        this.compareTo = compareTo;
    }

    public String name() {
        return name;
    }

    public String compareTo() {
        return compareTo;
    }

    public void sample(double millis) {
        samplesMs.add(millis);
    }

    public void sampleNanos(long nanos) {
        sample(nanos / 1e6);
    }

    /** Adds the storage calls and storage time (ns, by class) of {@code ops} operations (counter deltas). */
    public synchronized void calls(Map<String, Long> delta, Map<String, Long> nanos, long ops) {
        delta.forEach((label, count) -> calls.merge(label, count, Long::sum));
        nanos.forEach((label, spent) -> storageNanos.merge(label, spent, Long::sum));
        operations += ops;
    }

    public void note(String text) {
        notes.add(text);
    }

    public List<Double> samples() {
        synchronized (samplesMs) {
            return List.copyOf(samplesMs);
        }
    }

    public List<String> notes() {
        synchronized (notes) {
            return List.copyOf(notes);
        }
    }

    public synchronized long operations() {
        return operations;
    }

    /** Mean storage calls per operation, by class. */
    public synchronized Map<String, Double> callsPerOp() {
        Map<String, Double> out = new LinkedHashMap<>();
        if (operations > 0) {
            calls.forEach((label, count) -> out.put(label, count / (double) operations));
        }
        return out;
    }

    /** Mean storage time per operation in ms, by class (summed over overlapping calls). */
    public synchronized Map<String, Double> storageMsPerOp() {
        Map<String, Double> out = new LinkedHashMap<>();
        if (operations > 0) {
            storageNanos.forEach((label, spent) -> out.put(label, spent / 1e6 / operations));
        }
        return out;
    }

    public double median() {
        return Stats.median(samples());
    }
}
