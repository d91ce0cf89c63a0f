package dev.omnigraph.engine.merge;

import dev.omnigraph.engine.diff.ChangeOp;
import dev.omnigraph.engine.diff.RowChange;
import dev.omnigraph.engine.diff.RowValues;
import dev.omnigraph.engine.write.ChangeEstimates;
import dev.omnigraph.storage.error.MergeConflicts;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The three-way row rules of one table, by {@code id}, over two id-ordered row deltas: base → source and
 * base → target (an id absent from a delta is unchanged on that side). Source unchanged: keep the target;
 * target unchanged: take the source; both changed alike: keep; both changed differently: a conflict. What the
 * target has to change is collected as rows to write and ids to delete, within a {@link Bound} (beyond it, a 413
 * before any effect).
 */
final class RowMerge {
    /** Conflicts kept per table: enough to report, bounded whatever the deltas. */
    static final int MAX_CONFLICTS = 1_000;
    private static final Comparator<Sided> ORDER = Comparator.comparing((Sided s) -> s.change().id(), RowValues.ID_ORDER)
            .thenComparingInt(Sided::side);

    /**
     * The result for one table: rows to write, ids to delete, conflicts. {@code insertsOnly}: every row written is a
     * source insert the target does not have (absent at the base, not inserted by the target), and nothing is
     * deleted, so the rows can be appended without looking any id up.
     */
    record Result(List<Map<String, Object>> writes, List<String> deletes, List<MergeConflicts.Conflict> conflicts,
                  boolean insertsOnly) {
        Result(List<Map<String, Object>> writes, List<String> deletes, List<MergeConflicts.Conflict> conflicts) {
            this(writes, deletes, conflicts, false);
        }

        boolean isEmpty() {
            return writes.isEmpty() && deletes.isEmpty();
        }
    }

    private record Sided(RowChange change, int side) {
    }

    private RowMerge() {
    }

    /**
     * How much of one table's result a merge may hold before it refuses (413, before any effect): a table it writes
     * is capped by entities (the most its chain of chunks can commit); a pointer-only adopt writes nothing, so only the memory its
     * validation holds is capped, in estimated Arrow bytes shared by every such table of the operation.
     */
    sealed interface Bound {
        /**
         * Called after each row taken from the source, with the entities taken so far and that row (its size is
         * estimated only by the bound that caps bytes).
         */
        void check(String tableKey, int entities, Map<String, Object> takenRow);

        /**
         * A table the merge writes: at most {@code max} entities (the most its chain can commit), and the rows it
         * holds until staged, over every written table of the operation, at most {@code maxHeldBytes} estimated.
         */
        record Entities(int max, long maxHeldBytes, AtomicLong held) implements Bound {
            @Override
            public void check(String tableKey, int entities, Map<String, Object> takenRow) {
                if (entities > max) {
                    throw new ResourceLimitExceeded("entities a merge writes to " + tableKey, max, entities,
                            "merge smaller branches (merge more often)");
                }
                long total = held.addAndGet(ChangeEstimates.arrowBytes(List.of(takenRow)));
                if (total > maxHeldBytes) {
                    throw new ResourceLimitExceeded("estimated Arrow bytes of the rows a merge holds to write (up to "
                            + tableKey + ")", maxHeldBytes, total, "merge smaller branches (merge more often)");
                }
            }
        }

        record ValidatedBytes(long max, AtomicLong used) implements Bound {
            @Override
            public void check(String tableKey, int entities, Map<String, Object> takenRow) {
                long total = used.addAndGet(ChangeEstimates.arrowBytes(List.of(takenRow)));
                if (total > max) {
                    throw new ResourceLimitExceeded("estimated Arrow bytes of the changes a merge validates without "
                            + "writing them (pointer-only adopts, up to " + tableKey + ")", max, total,
                            "merge more often");
                }
            }
        }
    }

    static Mono<Result> merge(String tableKey, Flux<RowChange> sourceDelta, Flux<RowChange> targetDelta, Bound bound) {
        String entityKind = tableKey.startsWith("node:") ? "node" : "edge";
        String typeName = tableKey.substring(tableKey.indexOf(':') + 1);
        List<Map<String, Object>> writes = new ArrayList<>();
        List<String> deletes = new ArrayList<>();
        List<MergeConflicts.Conflict> conflicts = new ArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean insertsOnly = new java.util.concurrent.atomic.AtomicBoolean(true);
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
                        if (s.op() != ChangeOp.INSERT) {
                            insertsOnly.set(false);
                        }
                        Map<String, Object> taken;
                        if (s.op() == ChangeOp.DELETE) {
                            deletes.add(s.id());
                            taken = Map.of("id", s.id());
                        } else {
                            taken = s.after().orElseThrow();
                            writes.add(taken);
                        }
                        bound.check(tableKey, writes.size() + deletes.size(), taken);
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
                .then(Mono.fromSupplier(() -> new Result(List.copyOf(writes), List.copyOf(deletes), List.copyOf(conflicts),
                        insertsOnly.get() && deletes.isEmpty())));
    }
}
