package dev.omnigraph.storage;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.arrow.memory.ArrowBuf;

/**
 * A fixed set of strings, as a {@link Predicate} for {@link TableStorage#keysAmong}. Given this instead of any other
 * predicate, the key scan matches each row's UTF-8 bytes in place (the key rows' fingerprint, then compare) and makes a {@code String} only
 * for a value it finds: checking 14,000 endpoints against a 5,000,000-row key column then costs the scan, not five
 * million decoded strings (about 60 ns a row).
 */
public final class KeysWanted implements Predicate<String> {
    private final Set<String> keys;
    private final byte[][] bytes;
    private final String[] values;
    /** Open addressing: 1 + the index into {@link #bytes}, 0 for an empty slot. */
    private final int[] slots;
    private final int mask;

    public KeysWanted(Set<String> keys) {
        this.keys = Set.copyOf(keys);
        this.values = this.keys.toArray(String[]::new);
        this.bytes = new byte[values.length][];
        int capacity = Integer.highestOneBit(Math.max(2, values.length * 2 - 1)) << 1;
        this.slots = new int[capacity];
        this.mask = capacity - 1;
        for (int i = 0; i < values.length; i++) {
            bytes[i] = values[i].getBytes(StandardCharsets.UTF_8);
            int slot = spread(KeyRowIndex.fingerprint(bytes[i])) & mask;
            while (slots[slot] != 0) slot = (slot + 1) & mask;
            slots[slot] = i + 1;
        }
    }

    @Override
    public boolean test(String value) {
        return keys.contains(value);
    }

    /** The wanted value whose UTF-8 bytes are {@code length} bytes of {@code data} at {@code start}, or null. */
    String match(ArrowBuf data, long start, int length) {
        for (int slot = spread(KeyRowIndex.fingerprint(data, start, length)) & mask; slots[slot] != 0; slot = (slot + 1) & mask) {
            byte[] candidate = bytes[slots[slot] - 1];
            if (candidate.length == length && equal(candidate, data, start)) return values[slots[slot] - 1];
        }
        return null;
    }

    private static boolean equal(byte[] candidate, ArrowBuf data, long start) {
        for (int k = 0; k < candidate.length; k++) {
            if (candidate[k] != data.getByte(start + k)) return false;
        }
        return true;
    }

    private static int spread(int h) {
        return (h * 0x9E3779B9) ^ (h >>> 16);
    }
}
