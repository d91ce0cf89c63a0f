package dev.omnigraph.engine.write;

import java.util.Comparator;
import java.util.List;

/**
 * Everything one write changes, one {@link TableChange} per touched table (sorted by table key, the gate
 * order), plus what to report. {@code reprepareOnMovedHead}: the change is insert/upsert-only, so when the head
 * moves before any effect it is safe to plan again against the new head instead of failing.
 */
public record ChangeSet(List<TableChange> changes, long affectedNodes, long affectedEdges, boolean reprepareOnMovedHead) {
    public ChangeSet {
        changes = changes.stream().sorted(Comparator.comparing(TableChange::tableKey)).toList();
    }

    public boolean isEmpty() {
        return changes.isEmpty();
    }
}
