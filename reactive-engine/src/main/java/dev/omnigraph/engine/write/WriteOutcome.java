package dev.omnigraph.engine.write;

import dev.omnigraph.storage.manifest.GraphCommit;
import java.util.Optional;

/**
 * What a write did: the commit it published (empty for a no-op) and how many entities it touched.
 * {@code replayed} is true when an idempotency key matched an earlier write and this is that write's outcome.
 */
public record WriteOutcome(Optional<GraphCommit> commit, long affectedNodes, long affectedEdges, boolean replayed) {
    public WriteOutcome(Optional<GraphCommit> commit, long affectedNodes, long affectedEdges) {
        this(commit, affectedNodes, affectedEdges, false);
    }

    /** The same outcome, answered to a duplicate of the write that produced it. */
    public WriteOutcome asReplay() {
        return new WriteOutcome(commit, affectedNodes, affectedEdges, true);
    }
}
