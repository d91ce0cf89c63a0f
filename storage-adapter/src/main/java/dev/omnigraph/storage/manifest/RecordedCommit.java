package dev.omnigraph.storage.manifest;

/** A graph commit that carries an idempotency record, as read back from its {@code graph_commit} row. */
public record RecordedCommit(GraphCommit commit, IdempotencyRecord record) {
}
