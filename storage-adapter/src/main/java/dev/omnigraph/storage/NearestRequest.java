package dev.omnigraph.storage;

import java.util.List;
import java.util.Objects;

/**
 * An approximate nearest-neighbour search through a table's vector index: the {@code k} rows whose {@code column}
 * is closest (L2) to {@code key}, probing {@code nprobes} IVF partitions, projected to {@code columns} (all when
 * empty). Lance applies filters only after its top-k, so this request has none: a filtered nearest stays exact.
 */
public record NearestRequest(String column, float[] key, int k, int nprobes, List<String> columns) {
    public NearestRequest {
        Objects.requireNonNull(key, "key");
        SqlLiterals.requireIdentifier(column);
        columns = List.copyOf(columns);
        columns.forEach(SqlLiterals::requireIdentifier);
        if (k < 1 || nprobes < 1) {
            throw new IllegalArgumentException("k and nprobes must be positive: " + k + ", " + nprobes);
        }
        key = key.clone();
    }

    @Override
    public float[] key() {
        return key.clone();
    }
}
