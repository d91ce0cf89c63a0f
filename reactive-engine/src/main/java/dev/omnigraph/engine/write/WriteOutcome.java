package dev.omnigraph.engine.write;

import dev.omnigraph.storage.manifest.GraphCommit;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a write did: the commit it published (empty for a no-op) and how many entities it touched, in total per
 * kind and per table key ({@code node:Person} → 3): rows per mutation statement (an insert then an update of one
 * row counts 2, as upstream), records per load. {@code replayed} is true when an idempotency key matched an earlier
 * write and this is that write's outcome.
 */
public record WriteOutcome(Optional<GraphCommit> commit, long affectedNodes, long affectedEdges,
                           SortedMap<String, Long> entitiesByTable, boolean replayed) {
    public WriteOutcome {
        entitiesByTable = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(entitiesByTable));
    }

    /** An outcome of a write that ran now (not a replay). */
    public WriteOutcome(Optional<GraphCommit> commit, long affectedNodes, long affectedEdges,
                        SortedMap<String, Long> entitiesByTable) {
        this(commit, affectedNodes, affectedEdges, entitiesByTable, false);
    }

    /** A write that changed nothing. */
    public static WriteOutcome nothing() {
        return new WriteOutcome(Optional.empty(), 0, 0, new TreeMap<>());
    }

    /** The same outcome, answered to a duplicate of the write that produced it. */
    public WriteOutcome asReplay() {
        return new WriteOutcome(commit, affectedNodes, affectedEdges, entitiesByTable, true);
    }

    /** Type name → entities, for node tables ({@code "node"}) or edge tables ({@code "edge"}), sorted by name. */
    public SortedMap<String, Long> byType(String kind) {
        SortedMap<String, Long> out = new TreeMap<>();
        String prefix = kind + ":";
        for (Map.Entry<String, Long> e : entitiesByTable.entrySet()) {
            if (e.getKey().startsWith(prefix)) out.put(e.getKey().substring(prefix.length()), e.getValue());
        }
        return out;
    }
}
