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
 * {@code mergedParent}: a merge's second parent (the source head it captured under the gates); a change set
 * that has one is published even without table changes (a merge whose sides net out still records it).
 * {@code pointers}: tables whose pin moves without a data write ({@link PointerSwitch}; only merges plan them),
 * published with the same commit and recorded in the same sidecar as the table changes.
 */
public record ChangeSet(List<TableChange> changes, Map<String, Long> entitiesByTable, boolean reprepareOnMovedHead,
                        java.util.Optional<String> mergedParent, List<PointerSwitch> pointers) {
    public ChangeSet {
        changes = changes.stream().sorted(Comparator.comparing(TableChange::tableKey)).toList();
        entitiesByTable = Map.copyOf(entitiesByTable);
        pointers = pointers.stream().sorted(Comparator.comparing(PointerSwitch::tableKey)).toList();
    }

    public ChangeSet(List<TableChange> changes, Map<String, Long> entitiesByTable, boolean reprepareOnMovedHead) {
        this(changes, entitiesByTable, reprepareOnMovedHead, java.util.Optional.empty(), List.of());
    }

    /** The same change, published as a merge of {@code parent} (a commit even when nothing else changes). */
    public ChangeSet merging(String parent) {
        return new ChangeSet(changes, entitiesByTable, reprepareOnMovedHead, java.util.Optional.of(parent), pointers);
    }

    /** The same change, plus pins that move without a data write. */
    public ChangeSet withPointers(List<PointerSwitch> switched) {
        return new ChangeSet(changes, entitiesByTable, reprepareOnMovedHead, mergedParent, switched);
    }

    /** Published even without table changes: a merge records its second parent, and switched pins are changes. */
    public boolean commitWhenEmpty() {
        return mergedParent.isPresent() || !pointers.isEmpty();
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
