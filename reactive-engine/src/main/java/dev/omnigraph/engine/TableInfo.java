package dev.omnigraph.engine;

import java.util.Optional;

/** One table of a snapshot: its type, dataset path (relative to the root), pinned version, Lance ref and row count. */
public record TableInfo(String tableKey, String typeName, String kind, String path, long version,
                        Optional<String> lanceBranch, long rowCount) {
}
