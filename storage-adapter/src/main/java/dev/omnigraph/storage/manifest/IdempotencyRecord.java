package dev.omnigraph.storage.manifest;

import java.util.Objects;

/**
 * What a keyed write records on its graph commit row, in the same manifest transaction that publishes it: the
 * client's key, a hash of the request, and the counts needed to answer a retry with the original outcome (the
 * commit itself is the row that carries this record).
 */
public record IdempotencyRecord(String key, String requestHash, long affectedNodes, long affectedEdges) {
    public IdempotencyRecord {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(requestHash, "requestHash");
    }
}
