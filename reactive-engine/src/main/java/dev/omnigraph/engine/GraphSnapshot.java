package dev.omnigraph.engine;

import dev.omnigraph.storage.manifest.ManifestState;
import java.util.List;
import java.util.Optional;

/**
 * One pinned view of the graph: the branch, the manifest version and the commit it was served from, and every
 * table's pin. Every read of one request uses one snapshot, so it never sees half of a write.
 */
public record GraphSnapshot(String branch, long manifestVersion, Optional<String> graphCommitId, List<TableInfo> tables,
                            ManifestState manifest) {

    /** The pin of table {@code tableKey} (e.g. {@code node:Person}) in this snapshot, if the graph has it. */
    public Optional<TableInfo> table(String tableKey) {
        return tables.stream().filter(table -> table.tableKey().equals(tableKey)).findFirst();
    }
}
