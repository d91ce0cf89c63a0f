package dev.omnigraph.storage;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Thread-safe tallies of storage calls by class, and the wall time they took (subscription to first terminal
 * signal, summed, so overlapping calls add up), shared by {@link CountingTableStorage} and
 * {@link CountingObjectStore}. Benchmarks take a {@link #snapshot()} before and after a run and divide the
 * difference by the number of operations, so concurrent writers need no per-operation bookkeeping.
 */
public final class StorageCallCounter {

    /** The call classes counted. {@code SCAN_ROWS} is a volume (rows delivered by scans), not a call. */
    public enum Call {
        CREATE("create"), OPEN("open"), SCAN("scan"), SCAN_ROWS("scan.rows"), COUNT("count"),
        /** {@code readBlob}: one blob's size and a byte range. */
        BLOB("blob"),
        /** A volume, not a call: the bytes {@code readBlob} read from storage (the range, or a plain column's value). */
        BLOB_BYTES("blob.bytes"),
        /** Fragment or deletion-file writes: stageAppend/Upsert/Delete/Overwrite. */
        STAGE("stage"), COMMIT("commit"), DISCARD("discard"),
        /** {@code restore} and {@code stageRestore} (a restore writes no data files). */
        RESTORE("restore"), HEAD("head"), TRANSACTION_AT("transactionAt"),
        /** Maintenance: fragment compaction (of {@code __manifest} by the publisher). */
        COMPACT("compact"),
        /** Maintenance: version GC planning and deletion ({@code cleanup}). */
        GC("gc"),
        /** createBranch, deleteBranch, listBranches. */
        BRANCH("branch"),
        /** indexNames, createIndex. */
        INDEX("index"),
        /** Full-text queries through an inverted index, and the rows they returned. */
        FULL_TEXT("fullText"), FULL_TEXT_ROWS("fullText.rows"),
        OBJECT_GET("obj.get"), OBJECT_PUT("obj.put"), OBJECT_PUT_IF_ABSENT("obj.putIfAbsent"), OBJECT_REPLACE_IF("obj.replaceIf"),
        OBJECT_LIST("obj.list"), OBJECT_DELETE("obj.delete"), OBJECT_EXISTS("obj.exists");

        private final String label;

        Call(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        /** True for a volume (rows, bytes) rather than a count of calls; never summed into a call total. */
        public boolean isVolume() {
            return this == SCAN_ROWS || this == BLOB_BYTES;
        }

        /** True when {@code label} names a volume. */
        public static boolean isVolumeLabel(String label) {
            return label.equals(SCAN_ROWS.label) || label.equals(BLOB_BYTES.label);
        }
    }

    private final EnumMap<Call, LongAdder> counts = new EnumMap<>(Call.class);
    private final EnumMap<Call, LongAdder> nanos = new EnumMap<>(Call.class);

    public StorageCallCounter() {
        for (Call call : Call.values()) {
            counts.put(call, new LongAdder());
            nanos.put(call, new LongAdder());
        }
    }

    /** Wraps one call: counted on subscription, timed until its first success, error or cancel. */
    <T> Mono<T> counted(Call call, Supplier<Mono<T>> work) {
        return Mono.defer(() -> {
            record(call);
            Stopwatch watch = new Stopwatch(call);
            return work.get().doOnSuccess(value -> watch.stop()).doOnError(error -> watch.stop()).doOnCancel(watch::stop);
        });
    }

    /** As {@link #counted(Call, Supplier)} for a stream: timed until it completes, fails or is cancelled. */
    <T> Flux<T> countedFlux(Call call, Supplier<Flux<T>> work) {
        return Flux.defer(() -> {
            record(call);
            Stopwatch watch = new Stopwatch(call);
            return work.get().doOnComplete(watch::stop).doOnError(error -> watch.stop()).doOnCancel(watch::stop);
        });
    }

    private final class Stopwatch {
        private final Call call;
        private final long start = System.nanoTime();
        private final AtomicBoolean stopped = new AtomicBoolean();

        Stopwatch(Call call) {
            this.call = call;
        }

        void stop() {
            if (stopped.compareAndSet(false, true)) {
                nanos.get(call).add(System.nanoTime() - start);
            }
        }
    }

    public void record(Call call) {
        counts.get(call).increment();
    }

    public void add(Call call, long amount) {
        counts.get(call).add(amount);
    }

    public long get(Call call) {
        return counts.get(call).sum();
    }

    /** The nanoseconds {@code call}'s calls took so far. */
    public long nanos(Call call) {
        return nanos.get(call).sum();
    }

    /** Every class with its current total, in declaration order. */
    public Map<Call, Long> snapshot() {
        Map<Call, Long> out = new EnumMap<>(Call.class);
        counts.forEach((call, adder) -> out.put(call, adder.sum()));
        return Collections.unmodifiableMap(out);
    }

    /** Every class with the nanoseconds its calls took so far. */
    public Map<Call, Long> nanosSnapshot() {
        Map<Call, Long> out = new EnumMap<>(Call.class);
        nanos.forEach((call, adder) -> out.put(call, adder.sum()));
        return Collections.unmodifiableMap(out);
    }

    /** {@code after - before} per class, keeping only classes that moved, keyed by label. */
    public static Map<String, Long> delta(Map<Call, Long> before, Map<Call, Long> after) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Call call : Call.values()) {
            long moved = after.getOrDefault(call, 0L) - before.getOrDefault(call, 0L);
            if (moved != 0) {
                out.put(call.label(), moved);
            }
        }
        return out;
    }

    /** The sum of every call class (volumes such as {@code SCAN_ROWS} and {@code BLOB_BYTES} excluded). */
    public static long totalCalls(Map<String, Long> delta) {
        return delta.entrySet().stream().filter(e -> !Call.isVolumeLabel(e.getKey()))
                .mapToLong(Map.Entry::getValue).sum();
    }
}
