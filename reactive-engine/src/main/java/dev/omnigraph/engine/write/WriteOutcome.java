package dev.omnigraph.engine.write;

import dev.omnigraph.storage.manifest.GraphCommit;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a write did: the commit it published (empty for a no-op) and how many entities it touched, in total per
 * kind and per table key ({@code node:Person} → 3): rows per mutation statement (an insert then an update of one
 * row counts 2, as upstream), records per load.
 */
public record WriteOutcome(Optional<GraphCommit> commit, long affectedNodes, long affectedEdges,
                           SortedMap<String, Long> entitiesByTable) {
    public WriteOutcome {
        entitiesByTable = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(entitiesByTable));
    }

    /** A write that changed nothing. */
    public static WriteOutcome nothing() {
        return new WriteOutcome(Optional.empty(), 0, 0, new TreeMap<>());
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
