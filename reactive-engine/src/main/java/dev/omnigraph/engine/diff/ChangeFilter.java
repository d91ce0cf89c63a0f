package dev.omnigraph.engine.diff;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Which changes a caller wants: entity kinds ({@code node}/{@code edge}), type names and operations; an empty set
 * admits everything of that dimension. {@link #scope} is its canonical text, bound into feed cursors so a cursor
 * cannot be resumed under another filter.
 */
public record ChangeFilter(Set<String> kinds, Set<String> types, Set<ChangeOp> ops) {
    public static final ChangeFilter ALL = new ChangeFilter(Set.of(), Set.of(), Set.of());

    public ChangeFilter {
        kinds = Set.copyOf(kinds);
        types = Set.copyOf(types);
        ops = Set.copyOf(ops);
    }

    /** Parses repeated wire values; an unknown kind or op is a BadRequest naming the parameter. */
    public static ChangeFilter parse(List<String> kinds, List<String> types, List<String> ops) {
        for (String kind : kinds) {
            if (!kind.equals("node") && !kind.equals("edge")) {
                throw new dev.omnigraph.storage.error.BadRequest("kind must be node or edge, not '" + kind + "'");
            }
        }
        return new ChangeFilter(Set.copyOf(kinds), Set.copyOf(types),
                ops.stream().map(op -> ChangeOp.parse("op", op)).collect(Collectors.toSet()));
    }

    boolean admitsTable(String kind, String typeName) {
        return (kinds.isEmpty() || kinds.contains(kind)) && (types.isEmpty() || types.contains(typeName));
    }

    boolean admits(ChangeOp op) {
        return ops.isEmpty() || ops.contains(op);
    }

    /** Canonical text of the filter: sorted kinds, types and ops. */
    String scope() {
        return String.join(",", new TreeSet<>(kinds)) + ";" + String.join(",", new TreeSet<>(types)) + ";"
                + ops.stream().map(ChangeOp::wireName).sorted().collect(Collectors.joining(","));
    }
}
