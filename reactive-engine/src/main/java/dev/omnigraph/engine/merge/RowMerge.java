package dev.omnigraph.engine.merge;

import dev.omnigraph.engine.diff.ChangeOp;
import dev.omnigraph.engine.diff.RowChange;
import dev.omnigraph.engine.diff.RowValues;
import dev.omnigraph.storage.error.MergeConflicts;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The three-way row rules of one table, by {@code id}, over two id-ordered row deltas: base → source and
 * base → target (an id absent from a delta is unchanged on that side). Source unchanged: keep the target;
 * target unchanged: take the source; both changed alike: keep; both changed differently: a conflict. What the
 * target has to change is collected as rows to write and ids to delete, at most {@code maxEntities} of them
 * (more is a 413 before any effect).
 */
final class RowMerge {
    /** Conflicts kept per table: enough to report, bounded whatever the deltas. */
    static final int MAX_CONFLICTS = 1_000;
    private static final Comparator<Sided> ORDER = Comparator.comparing((Sided s) -> s.change().id(), RowValues.ID_ORDER)
            .thenComparingInt(Sided::side);

    /** The result for one table: rows to write, ids to delete, conflicts. */
    record Result(List<Map<String, Object>> writes, List<String> deletes, List<MergeConflicts.Conflict> conflicts) {
        boolean isEmpty() {
            return writes.isEmpty() && deletes.isEmpty();
        }
    }

    private record Sided(RowChange change, int side) {
    }

    private RowMerge() {
    }

    static Mono<Result> merge(String tableKey, Flux<RowChange> sourceDelta, Flux<RowChange> targetDelta, int maxEntities) {
        String entityKind = tableKey.startsWith("node:") ? "node" : "edge";
        String typeName = tableKey.substring(tableKey.indexOf(':') + 1);
        List<Map<String, Object>> writes = new ArrayList<>();
        List<String> deletes = new ArrayList<>();
        List<MergeConflicts.Conflict> conflicts = new ArrayList<>();
        return Flux.mergeComparing(256, ORDER, sourceDelta.map(c -> new Sided(c, 0)), targetDelta.map(c -> new Sided(c, 1)))
                .bufferUntilChanged(sided -> sided.change().id())
                .doOnNext(group -> {
                    Optional<RowChange> source = group.stream().filter(s -> s.side() == 0).map(Sided::change).findFirst();
                    Optional<RowChange> target = group.stream().filter(s -> s.side() == 1).map(Sided::change).findFirst();
                    if (source.isEmpty()) {
                        return; // source unchanged: the target's row stands
                    }
                    RowChange s = source.get();
                    if (target.isEmpty()) { // target unchanged: take the source
                        if (s.op() == ChangeOp.DELETE) {
                            deletes.add(s.id());
                        } else {
                            writes.add(s.after().orElseThrow());
                        }
                        if (writes.size() + deletes.size() > maxEntities) {
                            throw new ResourceLimitExceeded("entities a merge writes to " + tableKey, maxEntities,
                                    writes.size() + deletes.size(), "merge smaller branches (merge more often)");
                        }
                        return;
                    }
                    RowChange t = target.get();
                    boolean agree = s.after().isEmpty() && t.after().isEmpty()
                            || s.after().isPresent() && t.after().isPresent() && RowValues.rowsEqual(s.after().get(), t.after().get());
                    if (!agree && conflicts.size() < MAX_CONFLICTS) {
                        MergeConflicts.Kind kind = s.before().isEmpty() ? MergeConflicts.Kind.DIVERGENT_INSERT
                                : s.after().isEmpty() || t.after().isEmpty() ? MergeConflicts.Kind.DELETE_VS_UPDATE
                                : MergeConflicts.Kind.DIVERGENT_UPDATE;
                        conflicts.add(new MergeConflicts.Conflict(entityKind, typeName, Optional.of(s.id()), kind,
                                kind.wireName().replace('_', ' ') + " for id '" + s.id() + "'"));
                    }
                })
                .then(Mono.fromSupplier(() -> new Result(List.copyOf(writes), List.copyOf(deletes), List.copyOf(conflicts))));
    }
}
