package dev.omnigraph.storage.manifest;

import java.util.Objects;
import java.util.Optional;

/**
 * One registered table as a manifest version sees it: identity, alias, dataset location (relative to the graph
 * root), the Lance branch and version it is pinned at (empty branch = the dataset's main), its row count at that
 * version, and whether it was dropped.
 */
public record TableEntry(String tableKey, long stableTableId, long incarnationId, String location, long version,
                         Optional<String> lanceBranch, long rowCount, boolean tombstone) {
    public TableEntry {
        Objects.requireNonNull(tableKey, "tableKey");
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(lanceBranch, "lanceBranch");
    }

    public String objectId() {
        return ManifestSchema.tableObjectId(stableTableId, incarnationId);
    }

    /** The same table pinned at another version/ref with another row count. */
    public TableEntry pinnedAt(long newVersion, Optional<String> branch, long newRowCount) {
        return new TableEntry(tableKey, stableTableId, incarnationId, location, newVersion, branch, newRowCount, tombstone);
    }
}
