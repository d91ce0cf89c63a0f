package dev.omnigraph.engine.read;

import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.storage.SqlLiterals;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * Walks an edge table from a frontier of node ids. Each hop is one scan of the edge table per {@link
 * TableReader#IN_BATCH} frontier ids ({@code src IN (…)}, {@code dst IN (…)} or both), never a full scan.
 *
 * <p>Multi-hop traversals use visited-set semantics per start node: a breadth-first walk in which each node is
 * entered at most once, at its shortest distance, and the start node counts as visited from the beginning. A node
 * is reached when its shortest distance lies within {@code [min, max]}; the start reaches itself only through a
 * self-loop edge, at distance 1. This depends on the start/target pair alone, not on which end the walk starts
 * from, so a traversal gives the same pairs whether the planner expands it forwards or backwards.
 */
final class Expander {
    /** Which endpoint column a frontier id is looked up in. */
    enum Probe {
        /** Frontier ids are sources; step to destinations. */
        OUT,
        /** Frontier ids are destinations; step to sources. */
        IN,
        /** Either. */
        BOTH
    }

    /** One edge row found from a frontier id, and the node at its other end. */
    record Hit(Map<String, Object> edge, String opposite) {}

    /** Estimated heap of one entry of a walk's visited or reached sets (the id string is shared with the rows). */
    private static final long SET_ENTRY_BYTES = 48;

    private final TableReader reader;
    private final QueryBudget budget;

    Expander(TableReader reader, QueryBudget budget) {
        this.reader = reader;
        this.budget = budget;
    }

    private static String where(Probe probe, List<String> ids, String extra) {
        String keys = switch (probe) {
            case OUT -> SqlLiterals.inList("src", ids);
            case IN -> SqlLiterals.inList("dst", ids);
            case BOTH -> SqlLiterals.anyOf(List.of(SqlLiterals.inList("src", ids), SqlLiterals.inList("dst", ids)));
        };
        return extra == null ? keys : SqlLiterals.allOf(List.of(keys, extra));
    }

    /**
     * Every edge incident to a start id in the probed orientation, with its row ({@code columns}). An undirected
     * probe yields an edge once per endpoint in {@code starts}, a self-loop once.
     */
    Mono<Map<String, List<Hit>>> edges(EdgeTable edge, Probe probe, Set<String> starts, String extraSql,
                                       List<String> columns) {
        Map<String, List<Hit>> hits = new HashMap<>();
        return reader.scanByKeys(edge, starts, ids -> where(probe, ids, extraSql), columns, (ids, rows) -> {
            Set<String> batch = new HashSet<>(ids);
            for (Map<String, Object> row : rows) {
                String src = (String) row.get("src");
                String dst = (String) row.get("dst");
                // Attribute each orientation to the batch holding its key, so no edge is counted twice.
                if (probe != Probe.IN && batch.contains(src))
                    hits.computeIfAbsent(src, k -> new ArrayList<>()).add(new Hit(row, dst));
                if (probe != Probe.OUT && batch.contains(dst) && !(probe == Probe.BOTH && src.equals(dst)))
                    hits.computeIfAbsent(dst, k -> new ArrayList<>()).add(new Hit(row, src));
            }
        }).thenReturn(hits);
    }

    /**
     * Frontier id → neighbour ids (with repeats) for one hop: from the pinned version's cached adjacency when there
     * is one (the same ids a scan finds, see {@link TopologyCache}), else from scans of the edge table.
     */
    private Mono<Map<String, List<String>>> neighbours(EdgeTable edge, Probe probe, Set<String> frontier) {
        return reader.topology(edge).flatMap(topology -> topology.isPresent()
                ? Mono.fromSupplier(() -> neighbours(topology.get(), probe, frontier))
                : scanNeighbours(edge, probe, frontier));
    }

    private Map<String, List<String>> neighbours(Topology topology, Probe probe, Set<String> frontier) {
        Map<String, List<String>> out = new HashMap<>();
        long found = 0;
        for (String id : frontier) {
            List<String> next = topology.neighbours(id, probe);
            if (next.isEmpty()) continue;
            out.put(id, next);
            found += next.size();
        }
        budget.keepBytes(SET_ENTRY_BYTES * found); // what the hop holds, as a scan's edge rows would be charged
        return out;
    }

    private Mono<Map<String, List<String>>> scanNeighbours(EdgeTable edge, Probe probe, Set<String> frontier) {
        Map<String, List<String>> out = new HashMap<>();
        return reader.scanByKeys(edge, frontier, ids -> where(probe, ids, null), List.of("src", "dst"), (ids, rows) -> {
            Set<String> batch = new HashSet<>(ids);
            for (Map<String, Object> row : rows) {
                String src = (String) row.get("src");
                String dst = (String) row.get("dst");
                if (probe != Probe.IN && batch.contains(src)) out.computeIfAbsent(src, k -> new ArrayList<>()).add(dst);
                if (probe != Probe.OUT && batch.contains(dst)) out.computeIfAbsent(dst, k -> new ArrayList<>()).add(src);
            }
        }).thenReturn(out);
    }

    /**
     * For each start id, the ids reached within {@code [min, max]} hops (see the class comment). {@code sameType}
     * false (an edge between two node types) means ids of the two ends live in different tables: nothing is
     * "visited" across them and only one hop is possible.
     */
    Mono<Map<String, Set<String>>> reach(EdgeTable edge, Probe probe, Set<String> starts, int min, int max,
                                         boolean sameType) {
        Walk walk = new Walk(starts, sameType);
        if (min > max) return Mono.just(Map.of());
        return hop(edge, probe, walk, 1, min, max).thenReturn(walk.reached);
    }

    private Mono<Void> hop(EdgeTable edge, Probe probe, Walk walk, int hop, int min, int max) {
        Set<String> union = new LinkedHashSet<>();
        walk.frontier.values().forEach(union::addAll);
        if (union.isEmpty() || hop > max) return Mono.empty();
        return neighbours(edge, probe, union).flatMap(next -> {
            walk.advance(next, hop, min, budget);
            return hop(edge, probe, walk, hop + 1, min, max);
        });
    }

    /** Breadth-first state of every start at once. */
    private static final class Walk {
        final boolean sameType;
        final Map<String, Set<String>> visited = new HashMap<>();
        final Map<String, Set<String>> frontier = new LinkedHashMap<>();
        final Map<String, Set<String>> reached = new LinkedHashMap<>();

        Walk(Set<String> starts, boolean sameType) {
            this.sameType = sameType;
            for (String s : starts) {
                Set<String> seen = new HashSet<>();
                if (sameType) seen.add(s);
                visited.put(s, seen);
                frontier.put(s, Set.of(s));
            }
        }

        /** One hop for every start; the set entries it adds are charged to {@code budget} start by start. */
        void advance(Map<String, List<String>> neighbours, int hop, int min, QueryBudget budget) {
            for (Map.Entry<String, Set<String>> f : frontier.entrySet()) {
                long added = 0;
                String start = f.getKey();
                Set<String> seen = visited.get(start);
                Set<String> next = new LinkedHashSet<>();
                for (String node : f.getValue()) {
                    for (String n : neighbours.getOrDefault(node, List.of())) {
                        if (sameType && n.equals(start) && node.equals(start)) {
                            if (hop >= min) reached.computeIfAbsent(start, k -> new LinkedHashSet<>()).add(start);
                        } else if (seen.add(n)) {
                            added += sameType ? 2 : 1;
                            if (sameType) next.add(n);
                            if (hop >= min) {
                                reached.computeIfAbsent(start, k -> new LinkedHashSet<>()).add(n);
                                added++;
                            }
                        }
                    }
                }
                f.setValue(next);
                budget.keepBytes(SET_ENTRY_BYTES * added);
            }
        }
    }
}
