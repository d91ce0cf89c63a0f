package dev.omnigraph.storage;

import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.ResourceLimitExceeded;

/**
 * The last check on a filter before Lance parses it. Lance's SQL planner recurses once per level of the expression
 * tree on the calling thread's stack: a left-deep chain of about 300 {@code AND}s overflowed a 1 MiB storage thread
 * and killed the JVM with SIGSEGV, nested {@code NOT}s at depth 50 never finished, and a filter's size is paid in
 * parse time. So a filter is refused (changing nothing) unless its estimated tree depth, its {@code NOT} count and
 * its length are within bounds, and it holds only text the JNI layer can read (see {@link SqlLiterals#quote}).
 * {@link SqlLiterals} builds filters well within these bounds.
 */
public final class FilterBounds {
    /** Estimated expression depth; a 1 MiB thread survived 270 chained conditions, so this leaves a wide margin. */
    public static final int MAX_DEPTH = 64;
    public static final int MAX_NOTS = 16;
    public static final int MAX_CHARS = 16 * 1024 * 1024;

    private FilterBounds() {
    }

    /** {@code filter} unchanged, or a typed refusal. */
    public static String check(String filter) {
        if (filter.length() > MAX_CHARS) {
            throw new ResourceLimitExceeded("filter length", MAX_CHARS, filter.length(), "narrow the query");
        }
        ValidText.require("filter", filter);
        if (ValidText.hasSupplementary(filter)) {
            throw new BadRequest("filter holds a character outside the Basic Multilingual Plane outside a literal built"
                    + " by SqlLiterals.quote");
        }
        Shape shape = measure(filter);
        if (shape.depth > MAX_DEPTH) {
            throw new ResourceLimitExceeded("filter depth", MAX_DEPTH, shape.depth, "use fewer conditions");
        }
        if (shape.nots > MAX_NOTS) {
            throw new ResourceLimitExceeded("filter negations", MAX_NOTS, shape.nots, "use fewer negations");
        }
        return filter;
    }

    record Shape(int depth, int nots) {}

    /**
     * Over-estimates the expression depth: within one parenthesised group, a chain of k boolean operators parses
     * to a tree k deep (left-deep), plus one level for the group and its deepest sub-group. Quoted text is skipped.
     */
    static Shape measure(String sql) {
        int[] ops = new int[MAX_DEPTH + 2];
        int[] deepestChild = new int[ops.length];
        int level = 0;
        int nots = 0;
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '`' || c == '"') {
                i = skipQuoted(sql, i, c);
                continue;
            }
            if (c == '(') {
                if (++level > MAX_DEPTH) {
                    return new Shape(level, nots); // each group is a level: too deep already
                }
                ops[level] = 0;
                deepestChild[level] = 0;
            } else if (c == ')') {
                if (level == 0) {
                    throw new BadRequest("filter has an unbalanced ')' at index " + i);
                }
                int depth = ops[level] + deepestChild[level] + 1;
                level--;
                deepestChild[level] = Math.max(deepestChild[level], depth);
            } else if (Character.isLetter(c) && (i == 0 || !isWordChar(sql.charAt(i - 1)))) {
                int end = i;
                while (end < sql.length() && isWordChar(sql.charAt(end))) end++;
                String word = sql.substring(i, end);
                if (word.equalsIgnoreCase("AND") || word.equalsIgnoreCase("OR")) {
                    ops[level]++;
                } else if (word.equalsIgnoreCase("NOT")) {
                    ops[level]++;
                    nots++;
                }
                i = end;
                continue;
            }
            i++;
        }
        if (level != 0) {
            throw new BadRequest("filter has " + level + " unclosed '('");
        }
        return new Shape(ops[0] + deepestChild[0], nots);
    }

    private static int skipQuoted(String sql, int start, char quote) {
        int i = start + 1;
        while (i < sql.length()) {
            if (sql.charAt(i) == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2; // doubled quote: an escaped one
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        throw new BadRequest("filter has an unterminated " + quote + " quote");
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_';
    }
}
