package dev.omnigraph.engine.observe;

import java.util.Optional;

/**
 * What the telemetry reports of a finished write: its commit (empty when nothing changed), whether it was an
 * idempotent replay, and the entities it touched. The writer maps its own outcome onto it, so this package needs
 * none of the write package's types.
 */
public record WriteSummary(Optional<String> commitId, boolean replayed, long affectedNodes, long affectedEdges) {
}
