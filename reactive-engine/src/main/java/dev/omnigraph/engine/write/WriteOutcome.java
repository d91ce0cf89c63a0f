package dev.omnigraph.engine.write;

import dev.omnigraph.storage.manifest.GraphCommit;
import java.util.Optional;

/** What a write did: the commit it published (empty for a no-op) and how many entities it touched. */
public record WriteOutcome(Optional<GraphCommit> commit, long affectedNodes, long affectedEdges) {
}
