package dev.omnigraph.storage;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * A live view of one table storage's kept dataset handles (the reuse of opened datasets by scans and opens of
 * pinned main-ref versions): how many are kept and may be, and how often a scan or open found its version kept
 * (a hit), had to open it (a miss), or retired a handle to stay within the capacity (an eviction). One instance
 * per storage, so views reached through wrappers of the same storage are the same object.
 */
public final class KeptHandleStats {
    private final IntSupplier size;
    private final int capacity;
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong evictions = new AtomicLong();

    KeptHandleStats(IntSupplier size, int capacity) {
        this.size = size;
        this.capacity = capacity;
    }

    /** Handles kept now. */
    public int size() {
        return size.getAsInt();
    }

    /** Handles that may be kept (0: reuse is off). */
    public int capacity() {
        return capacity;
    }

    /** Scans and opens answered by a kept handle. */
    public long hits() {
        return hits.get();
    }

    /** Scans that opened their version (and kept it). */
    public long misses() {
        return misses.get();
    }

    /** Handles retired to stay within {@link #capacity()} (not those a version GC or a close retired). */
    public long evictions() {
        return evictions.get();
    }

    void hit() {
        hits.incrementAndGet();
    }

    void miss() {
        misses.incrementAndGet();
    }

    void evicted() {
        evictions.incrementAndGet();
    }
}
