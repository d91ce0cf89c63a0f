package dev.omnigraph.storage.manifest;

/** How one commit moved one table's pin. {@code fromVersion} is 0 for a table the commit registered. */
public record TableDelta(String tableKey, long fromVersion, long toVersion) {
}
