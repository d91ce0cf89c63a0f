package dev.omnigraph.storage;

import dev.omnigraph.storage.error.BadRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The only place that writes Lance SQL filter text. Column references are always back-quoted (Lance folds bare
 * identifiers to lower case, so {@code tAg} would read {@code tag}); string literals are quoted and escaped and
 * carry supplementary-plane characters as UTF-8 hex (Lance's JNI reads filter strings as modified UTF-8, in which a
 * surrogate pair is not valid UTF-8); conjunctions, disjunctions and {@code IN} lists are built as balanced trees of
 * bounded chunks, so no filter built here nests deeper than {@link FilterBounds} allows.
 */
public final class SqlLiterals {
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    /** Values per {@code IN (...)} chunk. */
    static final int IN_CHUNK = 1024;
    /** Characters per {@code IN (...)} chunk, past which a new chunk starts. */
    static final int IN_CHUNK_CHARS = 256 * 1024;
    /** Longest literal worth pushing into a scan; callers evaluate longer comparisons in Java. */
    public static final int MAX_PUSHED_LITERAL_CHARS = 64 * 1024;

    /** A comparison operator with an exact SQL spelling. */
    public enum Comparison {
        EQ("="), NE("<>"), LT("<"), LE("<="), GT(">"), GE(">=");

        private final String symbol;

        Comparison(String symbol) {
            this.symbol = symbol;
        }
    }

    private SqlLiterals() {
    }

    public static String requireIdentifier(String column) {
        if (column == null || !IDENTIFIER.matcher(column).matches()) {
            throw new BadRequest("invalid column name '" + column + "'");
        }
        return column;
    }

    /** A reference to {@code name}: checked, then back-quoted so its case is kept. */
    public static String column(String name) {
        return "`" + requireIdentifier(name) + "`";
    }

    /**
     * A string literal for {@code value}: single-quoted with embedded quotes doubled, or, when it holds a
     * supplementary-plane character, {@code CAST(X'<utf-8 hex>' AS STRING)}. NUL or a lone surrogate is a
     * {@link BadRequest}.
     */
    public static String quote(String value) {
        ValidText.require("filter value", value);
        if (!ValidText.hasSupplementary(value)) {
            return "'" + value.replace("'", "''") + "'";
        }
        StringBuilder hex = new StringBuilder("CAST(X'");
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
        }
        return hex.append("' AS STRING)").toString();
    }

    /** {@code DATE 'yyyy-mm-dd'}. */
    public static String date(java.time.LocalDate day) {
        return "DATE '" + day + "'";
    }

    /** Whether a comparison with {@code value} is short enough to push into a scan. */
    public static boolean pushable(String value) {
        return value.length() <= MAX_PUSHED_LITERAL_CHARS;
    }

    /** {@code `column` op literal}; {@code literal} must come from this class or be a numeric/boolean/date literal. */
    public static String compare(String column, Comparison op, String literal) {
        return column(column) + " " + op.symbol + " " + literal;
    }

    /** {@code `column` = 'value'}. */
    public static String eq(String column, String value) {
        return compare(column, Comparison.EQ, quote(value));
    }

    /** {@code `column` <> 'value'}. */
    public static String ne(String column, String value) {
        return compare(column, Comparison.NE, quote(value));
    }

    /** {@code function(`column`, literal)}, for Lance's {@code starts_with}, {@code contains}, {@code array_has}. */
    public static String call(String function, String column, String literal) {
        return requireIdentifier(function) + "(" + column(column) + ", " + literal + ")";
    }

    /**
     * {@code `column` IN ('a', 'b', …)}; an empty list yields a predicate that matches nothing. Long lists become a
     * balanced OR of chunks of at most {@link #IN_CHUNK} values and about {@link #IN_CHUNK_CHARS} characters.
     */
    public static String inList(String column, List<String> values) {
        String col = column(column);
        List<String> chunks = new ArrayList<>();
        StringBuilder chunk = null;
        int count = 0;
        for (String value : values) {
            if (chunk == null || count == IN_CHUNK || chunk.length() >= IN_CHUNK_CHARS) {
                if (chunk != null) chunks.add(chunk.append(')').toString());
                chunk = new StringBuilder(col).append(" IN (");
                count = 0;
            }
            chunk.append(count == 0 ? "" : ", ").append(quote(value));
            count++;
        }
        if (chunk != null) chunks.add(chunk.append(')').toString());
        return anyOf(chunks);
    }

    /** {@code `column` IN (1, 2, …)} of whole numbers, chunked like {@link #inList}; an empty list matches nothing. */
    public static String inNumbers(String column, List<Long> values) {
        String col = column(column);
        List<String> chunks = new ArrayList<>();
        for (int from = 0; from < values.size(); from += IN_CHUNK) {
            StringBuilder chunk = new StringBuilder(col).append(" IN (");
            for (int i = from; i < Math.min(values.size(), from + IN_CHUNK); i++) {
                chunk.append(i == from ? "" : ", ").append(values.get(i).longValue());
            }
            chunks.add(chunk.append(')').toString());
        }
        return anyOf(chunks);
    }

    /** The conjunction of {@code parts} as a balanced tree ({@code true} when empty). */
    public static String allOf(List<String> parts) {
        return parts.isEmpty() ? "true" : balanced(parts, " AND ", 0, parts.size());
    }

    /** The disjunction of {@code parts} as a balanced tree ({@code false} when empty). */
    public static String anyOf(List<String> parts) {
        return parts.isEmpty() ? "false" : balanced(parts, " OR ", 0, parts.size());
    }

    private static String balanced(List<String> parts, String op, int from, int to) {
        if (to - from == 1) return "(" + parts.get(from) + ")";
        int mid = (from + to) >>> 1;
        return "(" + balanced(parts, op, from, mid) + op + balanced(parts, op, mid, to) + ")";
    }
}
