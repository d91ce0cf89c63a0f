package dev.omnigraph.engine.write;

import dev.omnigraph.storage.error.ResourceLimitExceeded;

/** Enforces {@link WriteLimits} on a change set before anything is staged. */
final class WriteLimitCheck {
    private WriteLimitCheck() {
    }

    static void enforce(ChangeSet changes, WriteLimits limits) {
        for (TableChange change : changes.changes()) {
            if (change.chunkable()) {
                ChunkChain.split(change, limits); // a merge's delta commits as chunks: only their count is capped
                continue;
            }
            boolean entityCapped = change.kind() == TableChange.Kind.INSERT || change.kind() == TableChange.Kind.UPSERT;
            long entities = change.rows().size();
            if (entityCapped && entities > limits.maxEntitiesPerTable()) {
                throw new ResourceLimitExceeded("entities written to " + change.tableKey() + " in one commit",
                        limits.maxEntitiesPerTable(), entities,
                        "split the input into chunks of at most " + limits.maxEntitiesPerTable() + " entities per type");
            }
            long bytes = ChangeEstimates.arrowBytes(change.rows());
            if (bytes > limits.maxArrowBytesPerTable()) {
                throw new ResourceLimitExceeded("estimated Arrow bytes staged for " + change.tableKey(),
                        limits.maxArrowBytesPerTable(), bytes, "split the input into smaller chunks, one commit each");
            }
        }
    }

}
