package dev.omnigraph.storage;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads a 32-bit Roaring bitmap in the portable serialisation (what Lance stores as an index's fragment bitmap):
 * a cookie (12346 without run containers, followed by the container count; or 12347 with the count in its high
 * half, followed by the run-container flags), one (key, cardinality - 1) pair per container, container offsets
 * (absent for a run bitmap of fewer than 4 containers), then each container as sorted u16 values, a 65,536-bit
 * bitmap (more than 4,096 values), or (start, length - 1) runs.
 */
final class RoaringIds {
    private static final int NO_RUNS = 12346;
    private static final int WITH_RUNS = 12347;
    private static final int ARRAY_MAX = 4096;

    private RoaringIds() {
    }

    static Set<Integer> read(ByteBuffer source) {
        ByteBuffer in = source.slice().order(ByteOrder.LITTLE_ENDIAN);
        Set<Integer> out = new TreeSet<>();
        if (!in.hasRemaining()) {
            return out;
        }
        int cookie = in.getInt();
        int containers;
        byte[] runFlags = new byte[0];
        if ((cookie & 0xFFFF) == WITH_RUNS) {
            containers = (cookie >>> 16) + 1;
            runFlags = new byte[(containers + 7) / 8];
            in.get(runFlags);
        } else if (cookie == NO_RUNS) {
            containers = in.getInt();
        } else {
            throw new IllegalArgumentException("not a Roaring bitmap (cookie " + cookie + ")");
        }
        int[] keys = new int[containers];
        int[] cardinalities = new int[containers];
        for (int i = 0; i < containers; i++) {
            keys[i] = Short.toUnsignedInt(in.getShort());
            cardinalities[i] = Short.toUnsignedInt(in.getShort()) + 1;
        }
        if (cookie == NO_RUNS || containers >= 4) {
            in.position(in.position() + 4 * containers); // offsets: the containers follow in order anyway
        }
        for (int i = 0; i < containers; i++) {
            int high = keys[i] << 16;
            boolean run = runFlags.length > 0 && (runFlags[i / 8] & (1 << (i % 8))) != 0;
            if (run) {
                int runs = Short.toUnsignedInt(in.getShort());
                for (int r = 0; r < runs; r++) {
                    int start = Short.toUnsignedInt(in.getShort());
                    int length = Short.toUnsignedInt(in.getShort());
                    for (int v = start; v <= start + length; v++) out.add(high | v);
                }
            } else if (cardinalities[i] > ARRAY_MAX) {
                for (int word = 0; word < 1024; word++) {
                    long bits = in.getLong();
                    while (bits != 0) {
                        int bit = Long.numberOfTrailingZeros(bits);
                        out.add(high | (word * 64 + bit));
                        bits &= bits - 1;
                    }
                }
            } else {
                for (int v = 0; v < cardinalities[i]; v++) out.add(high | Short.toUnsignedInt(in.getShort()));
            }
        }
        return out;
    }
}
