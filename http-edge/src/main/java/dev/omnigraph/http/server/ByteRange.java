package dev.omnigraph.http.server;

import dev.omnigraph.http.wire.HttpProblem;

/** One HTTP byte range ({@code bytes=a-b}, {@code bytes=a-}, {@code bytes=-n}) against a body of known length. */
final class ByteRange {
    private ByteRange() {
    }

    /**
     * What an unsatisfiable (but well-formed) range asked for, as the inclusive {@code [start, end]} of the 416's
     * {@code blob_range} detail: a suffix of n bytes starts n bytes before the end (never before the first byte), and
     * a suffix or an open range ends at the last byte ({@code length - 1}, even where that is before the start).
     */
    static long[] requested(String header, long length) {
        String spec = header.trim().substring("bytes=".length()).trim();
        int dash = spec.indexOf('-');
        String a = spec.substring(0, dash).trim();
        String b = spec.substring(dash + 1).trim();
        long start = a.isEmpty() ? Math.max(0, length - Long.parseLong(b)) : Long.parseLong(a);
        return new long[] {start, !a.isEmpty() && !b.isEmpty() ? Long.parseLong(b) : length - 1};
    }

    /**
     * The inclusive {@code [first, last]} of the range, or an empty array when it is unsatisfiable.
     *
     * @throws HttpProblem 400 for a malformed header or several ranges (not supported)
     */
    static long[] parse(String header, long length) {
        String h = header.trim();
        if (!h.startsWith("bytes=")) throw HttpProblem.badRequest("Range must be bytes=first-last, got " + header);
        String spec = h.substring("bytes=".length()).trim();
        if (spec.contains(",")) throw HttpProblem.badRequest("only one byte range per request is supported");
        int dash = spec.indexOf('-');
        if (dash < 0) throw HttpProblem.badRequest("Range must be bytes=first-last, got " + header);
        String a = spec.substring(0, dash).trim();
        String b = spec.substring(dash + 1).trim();
        if (!a.chars().allMatch(Character::isDigit) || !b.chars().allMatch(Character::isDigit)
                || a.isEmpty() && b.isEmpty()) {
            // Digits only: Long.parseLong would take a sign ("bytes=--5", "bytes=-+5") as part of the number.
            throw HttpProblem.badRequest("Range must be bytes=first-last with decimal positions, got " + header);
        }
        try {
            if (a.isEmpty()) { // suffix: the last n bytes
                long n = Long.parseLong(b);
                if (n <= 0 || length == 0) return new long[0];
                return new long[] {Math.max(0, length - n), length - 1};
            }
            long first = Long.parseLong(a);
            long last = b.isEmpty() ? length - 1 : Math.min(Long.parseLong(b), length - 1);
            if (first < 0 || (!b.isEmpty() && Long.parseLong(b) < first))
                throw HttpProblem.badRequest("Range " + header + " has last < first");
            if (first >= length) return new long[0];
            return new long[] {first, last};
        } catch (NumberFormatException e) {
            throw HttpProblem.badRequest("Range must be bytes=first-last with decimal positions, got " + header);
        }
    }
}
