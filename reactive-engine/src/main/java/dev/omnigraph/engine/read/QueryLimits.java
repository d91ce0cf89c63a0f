package dev.omnigraph.engine.read;

import java.time.Duration;

/**
 * The budget of one read query, enforced while it runs: a breach stops the query, cancels its scans and releases
 * what it had materialised.
 *
 * <ul>
 *   <li>{@code maxIntermediateRows}: partial solutions one step of the match may hold (a scan's cross product,
 *       a traversal's expansion, a {@code not} block's input). Default 1,000,000.
 *   <li>{@code maxResultRows}: rows the query may return (after {@code limit}; groups for an aggregate).
 *       Default 1,000,000.
 *   <li>{@code maxMemoryBytes}: estimated heap held by materialised solutions (the rows read and kept plus the
 *       solution arrays alive). Default 150 MiB, the per-execution scan pool of the reference engine.
 *   <li>{@code timeout}: wall-clock time from the first demand for rows to the last row. A streamed result read
 *       slowly by its consumer counts too: the budget bounds how long a query holds scans open. Default 30 s, at
 *       most one day.
 * </ul>
 * Row and memory breaches are {@code ResourceLimitExceeded} ({@code resource_limit}); the timeout is
 * {@code QueryTimeout} ({@code query_timeout}).
 */
public record QueryLimits(long maxIntermediateRows, long maxResultRows, long maxMemoryBytes, Duration timeout) {
    public static final long DEFAULT_MAX_INTERMEDIATE_ROWS = 1_000_000L;
    public static final long DEFAULT_MAX_RESULT_ROWS = 1_000_000L;
    public static final long DEFAULT_MAX_MEMORY_BYTES = 150L * 1024 * 1024;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    /** The longest timeout accepted: past it a query is a job, not a request. */
    public static final Duration MAX_TIMEOUT = Duration.ofDays(1);

    public static final QueryLimits DEFAULT = new QueryLimits(DEFAULT_MAX_INTERMEDIATE_ROWS, DEFAULT_MAX_RESULT_ROWS,
            DEFAULT_MAX_MEMORY_BYTES, DEFAULT_TIMEOUT);

    public QueryLimits {
        if (maxIntermediateRows < 1 || maxResultRows < 1 || maxMemoryBytes < 1) {
            throw new IllegalArgumentException("query row and memory limits must be positive");
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX_TIMEOUT) > 0) {
            throw new IllegalArgumentException("the query timeout must be positive and at most " + MAX_TIMEOUT);
        }
    }

    /** The same budget with at most {@code rows} partial solutions per match step. */
    public QueryLimits withMaxIntermediateRows(long rows) {
        return new QueryLimits(rows, maxResultRows, maxMemoryBytes, timeout);
    }

    /** The same budget with at most {@code rows} result rows. */
    public QueryLimits withMaxResultRows(long rows) {
        return new QueryLimits(maxIntermediateRows, rows, maxMemoryBytes, timeout);
    }

    /** The same budget with at most {@code bytes} of estimated materialised heap. */
    public QueryLimits withMaxMemoryBytes(long bytes) {
        return new QueryLimits(maxIntermediateRows, maxResultRows, bytes, timeout);
    }

    /** The same budget with {@code newTimeout} from first demand to last row. */
    public QueryLimits withTimeout(Duration newTimeout) {
        return new QueryLimits(maxIntermediateRows, maxResultRows, maxMemoryBytes, newTimeout);
    }

    /** The stricter of each limit: a caller may narrow a server's budget, never widen it. */
    public QueryLimits tightenedBy(QueryLimits other) {
        return new QueryLimits(Math.min(maxIntermediateRows, other.maxIntermediateRows),
                Math.min(maxResultRows, other.maxResultRows), Math.min(maxMemoryBytes, other.maxMemoryBytes),
                timeout.compareTo(other.timeout) <= 0 ? timeout : other.timeout);
    }
}
