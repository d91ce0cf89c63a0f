package dev.omnigraph.engine.merge;

import dev.omnigraph.engine.diff.RowChange;
import dev.omnigraph.engine.diff.RowDeltas;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.write.ChangeSet;
import dev.omnigraph.engine.write.FirstTouchFork;
import dev.omnigraph.engine.write.PointerSwitch;
import dev.omnigraph.engine.write.TableChange;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.engine.write.WriteToken;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.MergeConflicts;
import dev.omnigraph.storage.error.ReadSetChanged;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Plans a merge of the captured {@code source} into the {@code target} token, under the target's branch gate: the
 * merge base, the outcome, and per type: skip (nothing to bring over), adopt (the target has not touched the type
 * since the base: apply the base → source delta) or a three-way row merge ({@link RowMerge}). Conflicts of every
 * type are collected, then the merged image is validated ({@link MergeValidation}); any conflict fails the merge
 * with {@link MergeConflicts} before anything is staged. The answer is an ordinary {@link ChangeSet} of
 * {@code ROW_DELTA} changes on the target's pins, published by the shared pipeline.
 */
final class MergePlanner {
    /** The outcome and what to publish (empty when up to date or net zero). */
    record Plan(MergeOutcome outcome, ChangeSet changes) {
    }

    private final WriteContext ctx;
    private final RowDeltas deltas;

    MergePlanner(WriteContext ctx) {
        this.ctx = ctx;
        this.deltas = new RowDeltas(ctx.tables());
    }

    Mono<Plan> plan(WriteToken target, WriteToken source) {
        String targetHead = head(target);
        String sourceHead = head(source);
        if (sourceHead.equals(targetHead)) {
            return Mono.just(new Plan(MergeOutcome.ALREADY_UP_TO_DATE, ChangeSet.none()));
        }
        return ctx.manifest().commits(source.branch()).concatWith(ctx.manifest().commits(target.branch())).collectList()
                .flatMap(commits -> {
                    GraphCommit base = MergeBase.of(commits, sourceHead, targetHead);
                    if (base.id().equals(sourceHead)) {
                        return Mono.just(new Plan(MergeOutcome.ALREADY_UP_TO_DATE, ChangeSet.none()));
                    }
                    boolean fastForward = base.id().equals(targetHead);
                    Mono<ManifestState> baseState = fastForward ? Mono.just(target.state())
                            : ctx.manifest().loadAt(base.branchName(), base.manifestVersion());
                    return baseState.flatMap(state -> changes(state, source.state(), target, fastForward))
                            .map(changes -> new Plan(fastForward ? MergeOutcome.FAST_FORWARD : MergeOutcome.MERGED,
                                    changes.merging(sourceHead)));
                });
    }

    private static String head(WriteToken token) {
        return token.effectiveHead().orElseThrow(() -> new BadRequest("branch '" + token.branch() + "' has no commits"));
    }

    /**
     * The change set of the merge. A fast-forward's merged image is the source's own, a published (hence valid)
     * graph: it is not validated again, and a type it adopts by pointer is only counted (its delta streams past, no
     * row held), so such a merge stays metadata-only in what it writes and holds, whatever the delta's size.
     */
    private Mono<ChangeSet> changes(ManifestState base, ManifestState source, WriteToken targetToken, boolean fastForward) {
        ManifestState target = targetToken.state();
        List<String> keys = ctx.catalog().tables().stream().map(CatalogTable::tableKey).sorted().toList();
        List<MergeConflicts.Conflict> conflicts = new ArrayList<>();
        List<TableChange> changes = new ArrayList<>();
        List<PointerSwitch> counted = new ArrayList<>();
        Map<String, Long> counts = new HashMap<>();
        RowMerge.Bound validated = new RowMerge.Bound.ValidatedBytes(ctx.limits().maxArrowBytesPerTable(), new AtomicLong());
        // A written table commits as a chain of chunks (WriteLimitCheck caps their count exactly); this stops the
        // scan early, before it holds more than the largest chain could write.
        RowMerge.Bound written = new RowMerge.Bound.Entities((int) Math.min(Integer.MAX_VALUE,
                (long) ctx.limits().maxEntitiesPerTable() * ctx.limits().maxChunksPerTable()),
                ctx.limits().maxMergeHeldBytes(), new AtomicLong());
        java.util.Set<String> byPointer = keys.stream().filter(key -> pointerAdopt(key, base, source, targetToken))
                .collect(java.util.stream.Collectors.toSet());
        return Flux.fromIterable(keys)
                .concatMap(key -> {
                    if (fastForward && byPointer.contains(key)) {
                        return delta(live(base, key), live(source, key)).count().doOnNext(entities -> {
                            if (entities > 0) {
                                counted.add(new PointerSwitch(live(target, key).orElseThrow(), live(source, key).orElseThrow()));
                                counts.put(key, entities);
                            }
                        }).then();
                    }
                    return table(key, live(base, key), live(source, key), live(target, key),
                            byPointer.contains(key) ? validated : written)
                            .doOnNext(result -> {
                                conflicts.addAll(result.conflicts());
                                if (!result.isEmpty()) {
                                    TableEntry pin = live(target, key).orElseThrow();
                                    // Proven-new rows only: appended (no id lookup, no deletion vectors).
                                    TableChange.Kind kind = result.insertsOnly() ? TableChange.Kind.APPEND : TableChange.Kind.ROW_DELTA;
                                    changes.add(new TableChange(pin, kind, result.writes(), result.deletes()));
                                    counts.put(key, (long) (result.writes().size() + result.deletes().size()));
                                }
                            }).then();
                })
                .then(Mono.defer(() -> {
                    if (!conflicts.isEmpty()) {
                        return Mono.error(new MergeConflicts(conflicts));
                    }
                    ChangeSet planned = ChangeSet.counted(changes, counts, false);
                    if (fastForward) {
                        return Mono.just(planned.withPointers(counted)); // every pointer adopt was counted above
                    }
                    return new MergeValidation(ctx, target).conflicts(planned).flatMap(invalid -> invalid.isEmpty()
                            ? Mono.just(switchPointers(planned, byPointer, source))
                            : Mono.error(new MergeConflicts(invalid)));
                }));
    }

    /**
     * Adopted types whose source state is another published version of the very ref the target reads through
     * (and does not own: a branch still inheriting main's table, say) move by pointer: no row is written, the
     * delta served only validation. A target's own ref is never switched (its live HEAD must stay its pin).
     */
    private static ChangeSet switchPointers(ChangeSet planned, java.util.Set<String> byPointer, ManifestState source) {
        List<TableChange> written = new ArrayList<>();
        List<PointerSwitch> switched = new ArrayList<>();
        for (TableChange change : planned.changes()) {
            if (byPointer.contains(change.tableKey())) {
                switched.add(new PointerSwitch(change.pin(), live(source, change.tableKey()).orElseThrow()));
            } else {
                written.add(change);
            }
        }
        return ChangeSet.counted(written, planned.entitiesByTable(), planned.reprepareOnMovedHead()).withPointers(switched);
    }

    /** Adopted (base == target) from a version of the very ref the target reads through and does not own. */
    private static boolean pointerAdopt(String key, ManifestState base, ManifestState source, WriteToken target) {
        Optional<TableEntry> from = live(source, key);
        Optional<TableEntry> pin = live(target.state(), key);
        return from.isPresent() && pin.isPresent() && live(base, key).equals(pin)
                && from.get().lanceBranch().equals(pin.get().lanceBranch()) && FirstTouchFork.inherited(target, pin.get());
    }

    /** One type: skip, adopt (base → source delta) or three-way. */
    private Mono<RowMerge.Result> table(String key, Optional<TableEntry> base, Optional<TableEntry> source,
                                        Optional<TableEntry> target, RowMerge.Bound bound) {
        if (source.equals(target) || base.equals(source)) {
            return Mono.just(new RowMerge.Result(List.of(), List.of(), List.of()));
        }
        requireOneIdentity(key, base, source, target);
        if (target.isEmpty()) {
            return Mono.error(new ReadSetChanged("branch_merge_dataset_identity:" + key, "registered on the source",
                    "absent on the target"));
        }
        Flux<RowChange> fromSource = delta(base, source);
        Flux<RowChange> fromTarget = base.equals(target) ? Flux.empty() : delta(base, target);
        return RowMerge.merge(key, fromSource, fromTarget, bound);
    }

    private Flux<RowChange> delta(Optional<TableEntry> before, Optional<TableEntry> after) {
        return open(before).zipWith(open(after))
                .flatMapMany(pins -> deltas.between(pins.getT1(), pins.getT2(), Optional.empty()));
    }

    private Mono<Optional<dev.omnigraph.storage.TableSnapshot>> open(Optional<TableEntry> entry) {
        return entry.map(e -> deltas.pin(ctx.root(), e).map(Optional::of)).orElseGet(() -> Mono.just(Optional.empty()));
    }

    /** A type dropped and re-added between the sides is not the same dataset: refuse rather than diff across. */
    private static void requireOneIdentity(String key, Optional<TableEntry> base, Optional<TableEntry> source,
                                           Optional<TableEntry> target) {
        List<TableEntry> present = new ArrayList<>();
        base.ifPresent(present::add);
        source.ifPresent(present::add);
        target.ifPresent(present::add);
        for (TableEntry entry : present) {
            if (!Objects.equals(entry.objectId(), present.get(0).objectId())) {
                throw new ReadSetChanged("branch_merge_dataset_identity:" + key, present.get(0).objectId(), entry.objectId());
            }
        }
    }

    private static Optional<TableEntry> live(ManifestState state, String key) {
        return state.table(key).filter(entry -> !entry.tombstone());
    }
}
