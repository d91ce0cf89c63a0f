package dev.omnigraph.storage;

import dev.omnigraph.storage.error.BadRequest;

/**
 * The one rule for user text that may reach Lance, Arrow or a file: it must be valid Unicode without NUL.
 * Refused are U+0000 (native code treats it as a terminator) and unpaired UTF-16 surrogates (they have no UTF-8
 * encoding, so the native side fails with "invalid utf-8 sequence"). A well-formed surrogate pair (an emoji,
 * any supplementary-plane character) is valid and passes untouched.
 *
 * <p>Each boundary reports the breach as its own typed error, naming its field: the {@code .gq}/{@code .pg}
 * lexers as a positioned parse error, parameters and facade arguments as {@link BadRequest}, NDJSON lines as a
 * parse error at line, column and property.
 */
public final class ValidText {
    private ValidText() {
    }

    /** Index of the first NUL or unpaired surrogate in {@code text}, or -1 when it is valid. */
    public static int firstInvalid(CharSequence text) {
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            // One test for the common case (every character of ordinary text): neither NUL nor a surrogate.
            if (c != '\0' && (c < Character.MIN_SURROGATE || c > Character.MAX_SURROGATE)) continue;
            if (c == '\0') return i;
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++; // a pair: one supplementary code point
                    continue;
                }
                return i;
            }
            if (Character.isLowSurrogate(c)) return i;
        }
        return -1;
    }

    /** Whether {@code text} holds a character outside the Basic Multilingual Plane (a surrogate pair). */
    static boolean hasSupplementary(CharSequence text) {
        for (int i = 0; i < text.length(); i++) {
            if (Character.isSurrogate(text.charAt(i))) return true;
        }
        return false;
    }

    public static boolean isValid(CharSequence text) {
        return firstInvalid(text) < 0;
    }

    /**
     * What is wrong with the character at {@code index} (a position {@link #firstInvalid} returned), spelled
     * without the character itself so that messages stay printable: e.g. "a NUL character (U+0000)".
     */
    public static String describe(CharSequence text, int index) {
        char c = text.charAt(index);
        return c == '\0' ? "a NUL character (U+0000)"
                : String.format("an unpaired surrogate (U+%04X)", (int) c);
    }

    /**
     * The problem with {@code text} for an error message ("contains … at character N", N 1-based in UTF-16
     * units), or null when it is valid.
     */
    public static String problem(CharSequence text) {
        int at = firstInvalid(text);
        if (at < 0) return null;
        return "contains " + describe(text, at) + " at character " + (at + 1)
                + "; text must be valid Unicode without NUL";
    }

    /**
     * @param field what the caller called the value, e.g. "param $name" or "branch"
     * @throws BadRequest naming {@code field} when {@code text} is not valid (null passes: absence is not text)
     */
    public static void require(String field, String text) {
        if (text == null) return;
        String problem = problem(text);
        if (problem != null) throw new BadRequest(field + " " + problem);
    }
}
