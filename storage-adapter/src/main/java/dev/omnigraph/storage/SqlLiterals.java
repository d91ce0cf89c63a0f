package dev.omnigraph.storage;

import dev.omnigraph.storage.error.BadRequest;
import java.util.List;
import java.util.regex.Pattern;

/** Builds Lance SQL filter fragments from engine values without injection: identifiers are checked, strings quoted. */
public final class SqlLiterals {
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private SqlLiterals() {
    }

    public static String requireIdentifier(String column) {
        if (column == null || !IDENTIFIER.matcher(column).matches()) {
            throw new BadRequest("invalid column name '" + column + "'");
        }
        return column;
    }

    /** A single-quoted SQL string literal; embedded quotes are doubled. */
    public static String quote(String value) {
        return "'" + value.replace("'", "''") + "'";
    }

    /** {@code column IN ('a', 'b', …)}; an empty list yields a predicate that matches nothing. */
    public static String inList(String column, List<String> values) {
        requireIdentifier(column);
        if (values.isEmpty()) {
            return "false";
        }
        StringBuilder sql = new StringBuilder(column).append(" IN (");
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) sql.append(", ");
            sql.append(quote(values.get(i)));
        }
        return sql.append(')').toString();
    }
}
