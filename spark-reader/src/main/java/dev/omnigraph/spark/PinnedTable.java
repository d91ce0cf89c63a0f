package dev.omnigraph.spark;

import java.util.Map;
import java.util.Objects;

/**
 * One table of a graph commit as an external reader sees it: a plain Lance dataset ({@code datasetUri}) read at the
 * version the commit pins. {@code kind} is {@code "node"} or {@code "edge"}; {@code rowCount} is the live rows at
 * that version (what a reader should count).
 */
public record PinnedTable(String tableKey, String kind, String typeName, String datasetUri, long version,
                          long rowCount) {
    public PinnedTable {
        Objects.requireNonNull(tableKey, "tableKey");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(typeName, "typeName");
        Objects.requireNonNull(datasetUri, "datasetUri");
    }

    /** The Lance Spark connector's reader options for this table: its path and the pinned version. */
    public Map<String, String> sparkOptions() {
        return Map.of("path", datasetUri, "version", Long.toString(version));
    }

    public boolean isNode() {
        return "node".equals(kind);
    }

    public boolean isEdge() {
        return "edge".equals(kind);
    }
}
