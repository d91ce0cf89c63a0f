package dev.omnigraph.engine.write;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything one write changes, one {@link TableChange} per touched table (sorted by table key, the gate
 * order), plus what to report: {@code entitiesByTable} (table key → entities the write counts for it: rows per
 * mutation statement, records per load). {@code reprepareOnMovedHead}: the change is insert/upsert-only, so when
 * the head moves before any effect it is safe to plan again against the new head instead of failing.
 * {@code commitWhenEmpty}: publish a commit even without table changes (a merge whose sides net out still
 * records its merged parent).
 */
public record ChangeSet(List<TableChange> changes, Map<String, Long> entitiesByTable, boolean reprepareOnMovedHead,
                        boolean commitWhenEmpty) {
    public ChangeSet {
        changes = changes.stream().sorted(Comparator.comparing(TableChange::tableKey)).toList();
        entitiesByTable = Map.copyOf(entitiesByTable);
    }

    public ChangeSet(List<TableChange> changes, Map<String, Long> entitiesByTable, boolean reprepareOnMovedHead) {
        this(changes, entitiesByTable, reprepareOnMovedHead, false);
    }

    /** No table change, but a commit all the same (its lineage is the point). */
    public static ChangeSet lineageOnly() {
        return new ChangeSet(List.of(), Map.of(), false, true);
    }

    public static ChangeSet counted(List<TableChange> changes, Map<String, Long> entitiesByTable, boolean reprepareOnMovedHead) {
        return new ChangeSet(changes, entitiesByTable, reprepareOnMovedHead);
    }

    /** No change: what a group's first write is planned on top of. */
    public static ChangeSet none() {
        return new ChangeSet(List.of(), Map.of(), true);
    }

    public boolean isEmpty() {
        return changes.isEmpty();
    }

    public long affectedNodes() {
        return sum("node:");
    }

    public long affectedEdges() {
        return sum("edge:");
    }

    /** The outcome of publishing this change as {@code commit}. */
    WriteOutcome outcome(java.util.Optional<dev.omnigraph.storage.manifest.GraphCommit> commit) {
        return new WriteOutcome(commit, affectedNodes(), affectedEdges(), new TreeMap<>(entitiesByTable));
    }

    private long sum(String prefix) {
        return entitiesByTable.entrySet().stream().filter(e -> e.getKey().startsWith(prefix))
                .mapToLong(Map.Entry::getValue).sum();
    }
}
