package dev.omnigraph.storage.error;

import java.time.Duration;

/**
 * A read query ran past its time budget and was stopped: its scans were cancelled and what it had materialised
 * released. Nothing changed; retrying the same query will time out again unless it is narrowed or the budget
 * raised.
 */
public final class QueryTimeout extends OmnigraphException {
    private final Duration timeout;

    public QueryTimeout(Duration timeout) {
        super(ErrorCode.QUERY_TIMEOUT, "query timed out after " + timeout.toMillis() + " ms and was stopped; narrow it "
                + "(filters, limit) or raise the query timeout", null);
        this.timeout = timeout;
    }

    public Duration timeout() {
        return timeout;
    }
}
