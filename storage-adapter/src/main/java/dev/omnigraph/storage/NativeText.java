package dev.omnigraph.storage;

import dev.omnigraph.storage.error.BadRequest;

/**
 * Text bound for native code must be well-formed Unicode without NUL: a lone surrogate has no UTF-8 encoding (Arrow
 * would silently store {@code ?}), and Lance's JNI layer reads some strings as modified UTF-8, where NUL is not the
 * single byte Rust expects. Callers above the storage adapter refuse such text first; this is the last line.
 */
public final class NativeText {
    private NativeText() {
    }

    /** {@code text}, or a {@link BadRequest} naming {@code field} and the offending UTF-16 index. */
    public static String requireValid(String text, String field) {
        int bad = firstInvalid(text);
        if (bad >= 0) {
            throw new BadRequest(field + " contains " + describe(text, bad) + " at index " + bad);
        }
        return text;
    }

    /** The UTF-16 index of the first NUL or unpaired surrogate, or -1. */
    public static int firstInvalid(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == 0) {
                return i;
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /** What is wrong at {@code index} (as found by {@link #firstInvalid}). */
    public static String describe(String text, int index) {
        return text.charAt(index) == 0 ? "a NUL character" : "an unpaired surrogate";
    }

    /** Whether {@code text} holds a character outside the Basic Multilingual Plane (a surrogate pair). */
    static boolean hasSupplementary(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (Character.isSurrogate(text.charAt(i))) {
                return true;
            }
        }
        return false;
    }
}
