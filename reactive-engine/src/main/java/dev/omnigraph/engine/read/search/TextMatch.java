package dev.omnigraph.engine.read.search;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Exact evaluation of the text clauses over one document's tokens (a scan; an inverted index may later pre-select
 * candidates, but the answer is defined here). A query without tokens matches nothing.
 */
public final class TextMatch {
    private TextMatch() {}

    /** {@code search}: every query token occurs in the document. */
    public static boolean all(List<String> doc, List<String> query) {
        if (query.isEmpty()) return false;
        return new HashSet<>(doc).containsAll(query);
    }

    /** {@code match_text}: the query tokens occur consecutively and in order. */
    public static boolean phrase(List<String> doc, List<String> query) {
        if (query.isEmpty()) return false;
        outer:
        for (int start = 0; start + query.size() <= doc.size(); start++) {
            for (int j = 0; j < query.size(); j++) if (!doc.get(start + j).equals(query.get(j))) continue outer;
            return true;
        }
        return false;
    }

    /**
     * {@code fuzzy}: every query token is within {@code distance} Levenshtein edits (insert, delete, substitute one
     * code point) of some document token; a null distance means the automatic one per query token
     * ({@link #autoDistance}).
     */
    public static boolean fuzzy(List<String> doc, List<String> query, Integer distance) {
        if (query.isEmpty()) return false;
        Set<String> terms = new HashSet<>(doc);
        for (String q : query) {
            int max = distance != null ? distance : autoDistance(q);
            boolean found = terms.contains(q);
            for (String t : terms) {
                if (found) break;
                found = withinDistance(q, t, max);
            }
            if (!found) return false;
        }
        return true;
    }

    /** 0 edits for tokens of up to 2 code points, 1 for 3 to 5, 2 for longer ones. */
    public static int autoDistance(String token) {
        int n = token.codePointCount(0, token.length());
        return n <= 2 ? 0 : n <= 5 ? 1 : 2;
    }

    /** Whether the Levenshtein distance of a and b (over code points) is at most {@code max}; stops early. */
    static boolean withinDistance(String a, String b, int max) {
        int[] x = a.codePoints().toArray();
        int[] y = b.codePoints().toArray();
        if (Math.abs(x.length - y.length) > max) return false;
        int[] prev = new int[y.length + 1];
        int[] cur = new int[y.length + 1];
        for (int j = 0; j <= y.length; j++) prev[j] = j;
        for (int i = 1; i <= x.length; i++) {
            cur[0] = i;
            int rowMin = cur[0];
            for (int j = 1; j <= y.length; j++) {
                int cost = x[i - 1] == y[j - 1] ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
                rowMin = Math.min(rowMin, cur[j]);
            }
            if (rowMin > max) return false;
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[y.length] <= max;
    }
}
