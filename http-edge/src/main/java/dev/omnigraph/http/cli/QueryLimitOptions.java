package dev.omnigraph.http.cli;

import dev.omnigraph.engine.read.QueryLimits;
import dev.omnigraph.storage.error.BadRequest;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * The read-query budget flags, shared by {@code query} (this one query) and {@code serve} (every query the server
 * runs). An absent flag keeps the default of {@link QueryLimits}.
 */
final class QueryLimitOptions {
    @Option(names = "--query-timeout", paramLabel = "<duration>",
            description = "Stop a read query after this long (at most 24h), e.g. 500ms, 30s, 2m; a bare number is seconds "
                    + "(default: 30s).")
    String timeout;

    @Option(names = "--query-max-rows", paramLabel = "<n>",
            description = "Refuse a read query returning more rows than this (default: 1000000).")
    Long maxRows;

    @Option(names = "--query-max-intermediate-rows", paramLabel = "<n>",
            description = "Refuse a read query when one step of its match holds more partial rows (default: 1000000).")
    Long maxIntermediateRows;

    @Option(names = "--query-max-memory", paramLabel = "<bytes>",
            description = "Refuse a read query whose materialised rows pass this estimate, e.g. 64MiB, 1GiB (default: 150MiB).")
    String maxMemory;

    /** {@code base} with every given flag applied; a malformed or non-positive value names its flag. */
    QueryLimits applyTo(QueryLimits base) {
        QueryLimits out = base;
        if (timeout != null) out = out.withTimeout(duration("--query-timeout", timeout));
        if (maxRows != null) out = out.withMaxResultRows(positive("--query-max-rows", maxRows));
        if (maxIntermediateRows != null) {
            out = out.withMaxIntermediateRows(positive("--query-max-intermediate-rows", maxIntermediateRows));
        }
        if (maxMemory != null) out = out.withMaxMemoryBytes(bytes("--query-max-memory", maxMemory));
        return out;
    }

    static QueryLimits of(QueryLimitOptions options, QueryLimits base) {
        return options == null ? base : options.applyTo(base);
    }

    static Duration duration(String flag, String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            Duration d = t.endsWith("ms") ? Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2).trim()))
                    : t.endsWith("s") ? Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1).trim()))
                    : t.endsWith("m") ? Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1).trim()))
                    : t.endsWith("h") ? Duration.ofHours(Long.parseLong(t.substring(0, t.length() - 1).trim()))
                    : Duration.ofSeconds(Long.parseLong(t));
            if (d.isZero() || d.isNegative() || d.compareTo(QueryLimits.MAX_TIMEOUT) > 0) {
                throw new BadRequest(flag + " must be positive and at most 24h, got '" + text + "'");
            }
            return d;
        } catch (NumberFormatException | ArithmeticException e) {
            throw new BadRequest(flag + " takes a duration such as 500ms, 30s, 2m or 1h, got '" + text + "'");
        }
    }

    static long bytes(String flag, String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        long unit = 1;
        for (String[] suffix : new String[][] {{"kib", "1024"}, {"mib", "1048576"}, {"gib", "1073741824"}}) {
            if (t.endsWith(suffix[0])) {
                unit = Long.parseLong(suffix[1]);
                t = t.substring(0, t.length() - suffix[0].length()).trim();
                break;
            }
        }
        try {
            return positive(flag, Math.multiplyExact(Long.parseLong(t), unit));
        } catch (NumberFormatException | ArithmeticException e) {
            throw new BadRequest(flag + " takes bytes, optionally with KiB, MiB or GiB, got '" + text + "'");
        }
    }

    private static long positive(String flag, long value) {
        if (value < 1) throw new BadRequest(flag + " must be positive, got " + value);
        return value;
    }
}
