package dev.omnigraph.storage;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;

/**
 * Where each value of a string key column lives in one table version: for every row, a 32-bit fingerprint of its
 * value and its stable Lance row id, sorted by fingerprint ({@link TableStorage#keyRows}). 16 bytes a row (80 MB for
 * 5,000,000 rows), where a hash map of the strings would take eight times that.
 *
 * <p>It names candidates, never answers: {@link #candidates} gives the row ids whose value has the same fingerprint
 * as the key, and the caller takes those rows and keeps the ones whose value is the key. Exact for the version it
 * was built from, since every row of that version is in it: a key with no candidate is held by no row, and a key
 * whose candidates all hold other values (a shared fingerprint) is not held either.
 */
public final class KeyRowIndex {
    /** Fingerprint in the high 32 bits, position (into {@link #rowIds}) in the low 32; sorted. */
    private final long[] packed;
    private final long[] rowIds;

    private KeyRowIndex(long[] packed, long[] rowIds) {
        this.packed = packed;
        this.rowIds = rowIds;
    }

    public int size() {
        return rowIds.length;
    }

    /** Heap held, in bytes. */
    public long estimatedBytes() {
        return 16L * rowIds.length + 64;
    }

    /** The row ids whose value may be {@code key} (the same fingerprint), usually one or none. */
    public long[] candidates(String key) {
        long fingerprint = fingerprint(key) & 0xFFFFFFFFL;
        int at = Arrays.binarySearch(packed, fingerprint << 32);
        int from = at >= 0 ? at : -at - 1;
        int to = from;
        while (to < packed.length && packed[to] >>> 32 == fingerprint) to++;
        long[] out = new long[to - from];
        for (int i = from; i < to; i++) out[i - from] = rowIds[(int) packed[i]];
        return out;
    }

    /** This index plus the rows of {@code added} (rows a later version appended; row ids are stable). */
    public KeyRowIndex plus(KeyRowIndex added) {
        Builder builder = new Builder(size() + added.size());
        for (long p : packed) builder.add((int) (p >>> 32), rowIds[(int) p]);
        for (long p : added.packed) builder.add((int) (p >>> 32), added.rowIds[(int) p]);
        return builder.build();
    }

    /** The fingerprint the index files {@code key} under (tests use it to find keys that share one). */
    public static int fingerprint(String key) {
        return fingerprint(key.getBytes(StandardCharsets.UTF_8));
    }

    /** FNV-1a over the UTF-8 bytes, folded to 32 bits. */
    static int fingerprint(byte[] value) {
        long h = 0xcbf29ce484222325L;
        for (byte b : value) h = (h ^ (b & 0xff)) * 0x100000001b3L;
        return (int) (h ^ (h >>> 32));
    }

    /** {@link #fingerprint(byte[])} of {@code length} bytes of {@code data} at {@code start}, read in place. */
    static int fingerprint(ArrowBuf data, long start, int length) {
        long h = 0xcbf29ce484222325L;
        for (int k = 0; k < length; k++) h = (h ^ (data.getByte(start + k) & 0xff)) * 0x100000001b3L;
        return (int) (h ^ (h >>> 32));
    }

    /** Collects (fingerprint, row id) pairs; not thread-safe. */
    static final class Builder {
        private long[] fingerprints;
        private long[] ids;
        private int size;

        Builder(int expected) {
            fingerprints = new long[Math.max(16, expected)];
            ids = new long[Math.max(16, expected)];
        }

        void add(int fingerprint, long rowId) {
            if (size == ids.length) {
                fingerprints = Arrays.copyOf(fingerprints, size * 2);
                ids = Arrays.copyOf(ids, size * 2);
            }
            fingerprints[size] = fingerprint & 0xFFFFFFFFL;
            ids[size++] = rowId;
        }

        KeyRowIndex build() {
            long[] packed = new long[size];
            for (int i = 0; i < size; i++) packed[i] = fingerprints[i] << 32 | i;
            Arrays.sort(packed);
            return new KeyRowIndex(packed, Arrays.copyOf(ids, size));
        }
    }
}
