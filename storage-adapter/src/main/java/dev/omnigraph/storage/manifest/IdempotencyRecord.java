package dev.omnigraph.storage.manifest;

import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a keyed write records on its graph commit row, in the same manifest transaction that publishes it: the
 * client's key, a hash of the request, and the counts needed to answer a retry with the original outcome (the
 * commit itself is the row that carries this record), per kind and per table key.
 */
public record IdempotencyRecord(String key, String requestHash, long affectedNodes, long affectedEdges,
                                SortedMap<String, Long> entitiesByTable) {
    public IdempotencyRecord {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(requestHash, "requestHash");
        entitiesByTable = java.util.Collections.unmodifiableSortedMap(
                new TreeMap<>(entitiesByTable == null ? java.util.Map.of() : entitiesByTable));
    }

    /** A record without per-table counts (written before they were recorded). */
    public IdempotencyRecord(String key, String requestHash, long affectedNodes, long affectedEdges) {
        this(key, requestHash, affectedNodes, affectedEdges, new TreeMap<>());
    }
}
