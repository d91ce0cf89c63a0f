package dev.omnigraph.engine.read;

import dev.omnigraph.storage.error.ResourceLimitExceeded;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;

/**
 * The running account of one query against its {@link QueryLimits}. Every place that materialises solutions or
 * keeps scanned rows charges it as it goes, so a breach throws in the middle of the work (and the scan feeding it
 * is cancelled by the error) instead of after a whole list has been built.
 *
 * <p>Memory is the estimate of rows read and kept (never credited back: rows a later filter drops may still be
 * referenced) plus the solution arrays alive. One query's operators run one after another, so plain fields
 * suffice; only {@link #cancel()} comes from another thread.
 */
final class QueryBudget {
    static final String INTERMEDIATE_ROWS = "query_intermediate_rows";
    static final String RESULT_ROWS = "query_result_rows";
    static final String MEMORY_BYTES = "query_memory_bytes";

    private final QueryLimits limits;
    private final long solutionBytes;
    private volatile boolean cancelled;
    private long keptRowBytes;
    private long liveSolutions;

    QueryBudget(QueryLimits limits, int slots) {
        this.limits = limits;
        this.solutionBytes = HeapEstimate.solution(slots);
    }

    /** For work outside a budgeted run (compiling a scope, export), which keeps nothing. */
    static QueryBudget unbounded() {
        return new QueryBudget(new QueryLimits(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE,
                QueryLimits.MAX_TIMEOUT), 0);
    }

    /** The consumer went away or the deadline passed: loops in progress stop at their next charge. */
    void cancel() {
        cancelled = true;
    }

    /** Scanned rows that will be kept (joined into solutions, or held for a lookup). */
    void keep(List<Map<String, Object>> rows) {
        live();
        keptRowBytes += HeapEstimate.rows(rows);
        checkMemory();
    }

    /** Bytes of other bookkeeping kept for the rest of the query (a traversal's visited sets). */
    void keepBytes(long bytes) {
        live();
        keptRowBytes += bytes;
        checkMemory();
    }

    /** {@code count} existing solutions start another working set (a {@code not} block's input). */
    void hold(long count) {
        live();
        liveSolutions += count;
        checkMemory();
    }

    /** {@code count} solutions were dropped (filtered out, or replaced by the next step's). */
    void release(long count) {
        liveSolutions -= count;
    }

    /** A fresh output list for one step of the match, charged row by row. */
    Step step() {
        return new Step();
    }

    /** The final row count, checked before anything is returned. */
    void checkResultRows(long rows) {
        if (rows > limits.maxResultRows()) {
            throw new ResourceLimitExceeded(RESULT_ROWS, limits.maxResultRows(), rows,
                    "add a limit or a narrower filter, or raise the result-row limit");
        }
    }

    private void live() {
        if (cancelled) throw new Cancelled();
    }

    /** Thrown into a loop whose query was cancelled; only ever reaches operators nobody listens to any more. */
    static final class Cancelled extends CancellationException {
        Cancelled() {
            super("the query was cancelled");
        }
    }

    private void checkMemory() {
        long bytes = keptRowBytes + liveSolutions * solutionBytes;
        if (bytes > limits.maxMemoryBytes()) {
            throw new ResourceLimitExceeded(MEMORY_BYTES, limits.maxMemoryBytes(), bytes,
                    "the query stopped when its materialised solutions passed the memory budget; narrow the match "
                            + "(filters, fewer unconnected variables) or raise the memory limit");
        }
    }

    /** The solutions one step produces; adding past a limit throws. */
    final class Step {
        final List<Object[]> rows = new ArrayList<>();

        void add(Object[] solution) {
            live();
            if (rows.size() >= limits.maxIntermediateRows()) {
                throw new ResourceLimitExceeded(INTERMEDIATE_ROWS, limits.maxIntermediateRows(), rows.size() + 1L,
                        "the query stopped when one step of its match passed the limit; connect its variables "
                                + "with traversals, filter earlier, or raise the intermediate-row limit");
            }
            rows.add(solution);
            liveSolutions++;
            checkMemory();
        }
    }
}
