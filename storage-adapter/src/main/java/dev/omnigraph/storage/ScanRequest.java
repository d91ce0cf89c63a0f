package dev.omnigraph.storage;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A filtered, projected scan. {@code filter} is a Lance (DataFusion) SQL predicate; an empty column list means
 * every column. {@code rowAddress} adds the {@code _rowaddr} column (fragment id &lt;&lt; 32 | offset).
 * {@code orderBy} names a column the rows come back sorted by, ascending (Lance sorts natively, off the heap).
 * {@code fragments}, when present, restricts the scan to those fragment ids (none: no rows).
 */
public record ScanRequest(Optional<String> filter, List<String> columns, OptionalLong limit, int batchSize,
                          boolean rowAddress, Optional<String> orderBy, Optional<List<Integer>> fragments) {
    public static final int DEFAULT_BATCH_SIZE = 4096;

    public ScanRequest {
        columns = List.copyOf(columns);
        java.util.Objects.requireNonNull(orderBy, "orderBy");
        fragments = fragments.map(List::copyOf);
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be positive");
        }
    }

    public ScanRequest(Optional<String> filter, List<String> columns, OptionalLong limit, int batchSize,
                       boolean rowAddress) {
        this(filter, columns, limit, batchSize, rowAddress, Optional.empty());
    }

    public ScanRequest(Optional<String> filter, List<String> columns, OptionalLong limit, int batchSize,
                       boolean rowAddress, Optional<String> orderBy) {
        this(filter, columns, limit, batchSize, rowAddress, orderBy, Optional.empty());
    }

    public static ScanRequest all() {
        return new ScanRequest(Optional.empty(), List.of(), OptionalLong.empty(), DEFAULT_BATCH_SIZE, false);
    }

    public static ScanRequest where(String filter) {
        return all().withFilter(filter);
    }

    public ScanRequest withFilter(String sql) {
        return new ScanRequest(Optional.of(sql), columns, limit, batchSize, rowAddress, orderBy, fragments);
    }

    public ScanRequest withColumns(List<String> projected) {
        return new ScanRequest(filter, projected, limit, batchSize, rowAddress, orderBy, fragments);
    }

    public ScanRequest withLimit(long max) {
        return new ScanRequest(filter, columns, OptionalLong.of(max), batchSize, rowAddress, orderBy, fragments);
    }

    public ScanRequest withBatchSize(int rows) {
        return new ScanRequest(filter, columns, limit, rows, rowAddress, orderBy, fragments);
    }

    public ScanRequest includingRowAddress() {
        return new ScanRequest(filter, columns, limit, batchSize, true, orderBy, fragments);
    }

    /** The same scan with rows sorted ascending by {@code column}. */
    public ScanRequest orderedBy(String column) {
        return new ScanRequest(filter, columns, limit, batchSize, rowAddress, Optional.of(column), fragments);
    }

    /** The same scan over only the fragments {@code ids} (an empty list reads nothing). */
    public ScanRequest onFragments(List<Integer> ids) {
        return new ScanRequest(filter, columns, limit, batchSize, rowAddress, orderBy, Optional.of(ids));
    }
}
