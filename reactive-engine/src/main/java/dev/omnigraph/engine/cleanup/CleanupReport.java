package dev.omnigraph.engine.cleanup;

import java.util.List;

/**
 * What {@code cleanup} removed (or, unconfirmed, would remove): per table dataset, the versions and files and the
 * bytes they hold, and the totals; and the orphaned table forks ({@code location@name}) it deleted.
 */
public record CleanupReport(boolean confirmed, List<TableCleanup> tables, List<String> forks) {
    public CleanupReport {
        tables = List.copyOf(tables);
        forks = List.copyOf(forks);
    }

    /** One dataset (its location under the graph root): versions, files and bytes reclaimed. */
    public record TableCleanup(String location, int versions, int files, long bytes) {
    }

    public long versions() {
        return tables.stream().mapToLong(TableCleanup::versions).sum();
    }

    public long files() {
        return tables.stream().mapToLong(TableCleanup::files).sum();
    }

    public long bytes() {
        return tables.stream().mapToLong(TableCleanup::bytes).sum();
    }
}
