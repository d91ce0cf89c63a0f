package dev.omnigraph.storage;

import java.util.concurrent.ThreadLocalRandom;

/**
 * ULIDs (26 Crockford base32 chars: 48-bit ms time + 80 random bits) for commit and operation ids. Monotonic
 * within one JVM: ids minted in the same millisecond increment the random part, so they sort in mint order.
 * Randomness comes from {@link ThreadLocalRandom}: ids must be unique, not unguessable, and SecureRandom would
 * read /dev/urandom — a blocking call that is not allowed on event-loop threads.
 */
public final class Ulid {
    private static final char[] ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();
    private static long lastMillis = -1;
    private static long randomHigh; // 16 bits
    private static long randomLow;  // 64 bits

    private Ulid() {
    }

    public static synchronized String next() {
        long now = System.currentTimeMillis();
        if (now <= lastMillis) {
            now = lastMillis;
            randomLow++;
            if (randomLow == 0) {
                randomHigh = (randomHigh + 1) & 0xFFFF;
            }
        } else {
            lastMillis = now;
            randomHigh = ThreadLocalRandom.current().nextInt(1 << 16);
            randomLow = ThreadLocalRandom.current().nextLong();
        }
        return encode(now, randomHigh, randomLow);
    }

    static String encode(long millis, long high16, long low64) {
        char[] out = new char[26];
        long time = millis;
        for (int i = 9; i >= 0; i--) {
            out[i] = ALPHABET[(int) (time & 31)];
            time >>>= 5;
        }
        // 80 random bits = high16 (16 bits) followed by low64; emit as 16 chars of 5 bits.
        for (int i = 25; i >= 10; i--) {
            out[i] = ALPHABET[(int) (low64 & 31)];
            low64 = (low64 >>> 5) | ((high16 & 31) << 59);
            high16 >>>= 5;
        }
        return new String(out);
    }

    /** True for a well-formed ULID string. */
    public static boolean isValid(String text) {
        if (text == null || text.length() != 26 || text.charAt(0) > '7') {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            if (new String(ALPHABET).indexOf(text.charAt(i)) < 0) {
                return false;
            }
        }
        return true;
    }
}
