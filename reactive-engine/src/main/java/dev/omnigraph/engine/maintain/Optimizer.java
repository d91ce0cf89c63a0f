package dev.omnigraph.engine.maintain;

import dev.omnigraph.engine.index.IndexBuilds;
import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.engine.maintain.OptimizeResult.Compacted;
import dev.omnigraph.engine.maintain.OptimizeResult.Indexed;
import dev.omnigraph.engine.maintain.OptimizeResult.SkippedDrift;
import dev.omnigraph.engine.write.RecoveryCoordinator;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.recovery.TablePaths;
import dev.omnigraph.storage.IndexSpec;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.ExpectedHead;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.PublishRequest;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import dev.omnigraph.engine.observe.EngineTelemetry;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code optimize}: compacts one branch's own tables (small fragments folded, deleted rows materialised) and folds
 * their indexes, as one tracked maintenance write. A branch's own tables are the ones on its Lance ref: all of
 * main's on main, the forked ones on a branch (tables a branch still inherits are main's to optimize). Under the
 * branch's gate and every table's gate it refuses pending recovery, skips tables whose HEAD is not their pin
 * (uncovered drift, reported), plans each remaining table — compaction tasks, and the indexes its schema implies
 * that are missing or do not cover every fragment ({@link IndexBuilds#stale}) — and when anything is left: arms one
 * Optimize sidecar naming, per table, the pin it starts from, the version its compaction ends at
 * ({@code pin + tasks + 1}: one ReserveFragments version per task, then the Rewrite; the pin itself when there is
 * nothing to compact) and the last version ({@code + one per index build}); compacts and then indexes table by
 * table; publishes every new version in one commit; deletes the sidecar. A failure after arming is compensated by
 * recovery, which publishes whatever landed (none of it changes rows); a crash leaves the sidecar for the next
 * open or write to do the same.
 */
public final class Optimizer {
    public static final String ACTOR = "omnigraph:optimize";
    public static final String WRITER = "optimize";

    /** The operations of the commits optimize (or recovery, for it) publishes: none of them changes a row. */
    private static final java.util.Set<String> OPERATIONS = java.util.Set.of(WRITER,
            dev.omnigraph.recovery.SidecarRecovery.OPTIMIZE_RECOVERED_OPERATION);

    private final WriteContext ctx;

    public Optimizer(WriteContext ctx) {
        this.ctx = ctx;
    }

    /**
     * One table with work: its pin, the rewrite tasks Lance planned (0: already compact) and the index builds that
     * follow the compaction.
     */
    private record Planned(TableEntry pin, int tasks, int fragments, List<IndexSpec> indexes) {
        long compactedVersion() {
            return pin.version() + (tasks > 0 ? tasks + 1 : 0);
        }

        /** The compaction's version, plus one for the CreateIndex transaction that folds the indexes in. */
        long lastVersion() {
            return compactedVersion() + (indexes.isEmpty() ? 0 : 1);
        }

        boolean hasWork() {
            return tasks > 0 || !indexes.isEmpty();
        }
    }

    /** True for the operation of a commit that only compacted and indexed (the change feed skips it). */
    public static boolean preservesRows(String operation) {
        return OPERATIONS.contains(operation);
    }

    /** Optimizes main. */
    public Mono<OptimizeResult> run(Optional<String> actor) {
        return run(GraphBranches.MAIN, actor);
    }

    /** Optimizes {@code branch}'s own tables (on main: every table). */
    public Mono<OptimizeResult> run(String branch, Optional<String> actor) {
        return ctx.manifest().load(branch).flatMap(probe -> {
            TreeSet<String> keys = new TreeSet<>();
            probe.liveTables().forEach(entry -> keys.add(entry.tableKey()));
            return gated(branch, keys, actor, true);
        });
    }

    /**
     * A minor compaction: the same tracked writer on one table of {@code branch} (if it is the branch's own), its
     * small fragments merged by the same plan and no index built or rebuilt (the merged fragments stay
     * unindexed, which Lance scans; the next optimize decides about the index).
     */
    public Mono<OptimizeResult> compactSmall(String branch, String tableKey) {
        return gated(branch, new TreeSet<>(java.util.Set.of(tableKey)), Optional.of(MINOR_ACTOR), false);
    }

    /** The actor of the minor compactions the engine runs by itself ({@link MinorCompactions}). */
    public static final String MINOR_ACTOR = "omnigraph:compact";

    /**
     * Runs detached from its subscriber once subscribed: a cancel must not release the gates while a Lance call
     * (which cannot be interrupted) is still compacting, or the next writer would stage on a version that moves.
     */
    private Mono<OptimizeResult> gated(String branch, TreeSet<String> keys, Optional<String> actor, boolean indexes) {
        return Mono.fromFuture(() -> Mono.usingWhen(ctx.gates().forWrite(branch, keys),
                permit -> underGates(branch, keys, actor, indexes),
                Permit::releaseAsync, (permit, error) -> permit.releaseAsync(), Permit::releaseAsync).toFuture(), true);
    }

    private Mono<OptimizeResult> underGates(String branch, java.util.Set<String> gated, Optional<String> actor,
                                            boolean withIndexes) {
        Optional<String> ownRef = GraphBranches.lanceRef(branch);
        return ctx.sidecars().list().next().flatMap(pending -> Mono.<ManifestState>error(new RecoveryRequired(
                        pending.operationId(), "optimize refused: a write's recovery is pending", null)))
                .switchIfEmpty(Mono.defer(() -> ctx.manifest().load(branch)))
                .flatMap(state -> {
                    List<SkippedDrift> skipped = new ArrayList<>();
                    return Flux.fromIterable(state.liveTables())
                            // The branch's own tables, and only those gated (a schema apply may have added one since).
                            .filter(entry -> entry.lanceBranch().equals(ownRef) && gated.contains(entry.tableKey()))
                            .concatMap(entry -> plan(entry, skipped, withIndexes))
                            .collectList()
                            .flatMap(planned -> ctx.failpoints().hit(WRITER + ".after_plan").then(Mono.defer(() -> {
                                List<Planned> work = planned.stream().filter(Planned::hasWork).toList();
                                int compact = (int) planned.stream().filter(p -> p.tasks() == 0).count();
                                return work.isEmpty()
                                        ? Mono.just(new OptimizeResult(List.of(), skipped, compact, Optional.empty(),
                                                List.of()))
                                        : compactAll(branch, state, work, actor).map(done -> new OptimizeResult(
                                                done.compacted(), skipped, compact, Optional.of(done.commitId()),
                                                done.indexed()));
                            })));
                });
    }

    private Mono<Planned> plan(TableEntry entry, List<SkippedDrift> skipped, boolean withIndexes) {
        TableRef ref = ctx.ref(entry);
        return ctx.tables().open(ref, OptionalLong.empty()).flatMap(head -> {
            if (head.version() != entry.version()) {
                skipped.add(new SkippedDrift(entry.tableKey(), entry.version(), head.version()));
                return Mono.empty();
            }
            Mono<List<IndexSpec>> indexes = !withIndexes ? Mono.just(List.of()) : ctx.catalog().table(entry.tableKey())
                    .map(table -> new IndexBuilds(ctx.tables()).stale(table, ref, entry.version(), entry.rowCount()))
                    .orElse(Mono.just(List.of()));
            return Mono.zip(ctx.tables().compactionTasks(ref), indexes)
                    .map(both -> new Planned(entry, both.getT1(), head.fragmentCount(), both.getT2()));
        });
    }

    private record Done(List<Compacted> compacted, List<Indexed> indexed, String commitId) {
    }

    private Mono<Done> compactAll(String branch, ManifestState state, List<Planned> work, Optional<String> actor) {
        String operationId = Ulid.next();
        String commitId = Ulid.next();
        Sidecar armed = intent(branch, operationId, work, actor);
        List<Compacted> compacted = new ArrayList<>();
        List<Indexed> indexed = new ArrayList<>();
        Map<String, Long> landed = new LinkedHashMap<>();
        AtomicInteger compactions = new AtomicInteger();
        AtomicInteger builds = new AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<Sidecar> intent = new java.util.concurrent.atomic.AtomicReference<>(armed);
        EngineTelemetry telemetry = ctx.telemetry();
        Mono<Done> effects = Flux.fromIterable(work)
                // One table_commit step per table (its compaction and index builds): progress and a timer.
                .concatMap(planned -> telemetry.step(Sidecar.WriterKind.Optimize, EngineTelemetry.Step.TABLE_COMMIT,
                        effects(planned, intent, compactions, builds, compacted::add)).doOnNext(version -> {
                    landed.put(planned.pin().tableKey(), version);
                    if (!planned.indexes().isEmpty()) {
                        indexed.add(new Indexed(planned.pin().tableKey(),
                                planned.indexes().stream().map(IndexSpec::name).toList()));
                    }
                }))
                .then(telemetry.step(Sidecar.WriterKind.Optimize, EngineTelemetry.Step.PUBLISH,
                        Mono.defer(() -> publish(branch, state, landed, commitId, actor))))
                .then(ctx.failpoints().hit(WRITER + ".after_publish"))
                .then(ctx.failpoints().hit(WRITER + ".before_sidecar_delete"))
                .then(telemetry.step(Sidecar.WriterKind.Optimize, EngineTelemetry.Step.SIDECAR_DELETE,
                        ctx.sidecars().delete(operationId)
                                .onErrorResume(error -> Mono.just(false)))) // the next heal or open finalizes it
                .then(Mono.fromSupplier(() -> new Done(List.copyOf(compacted), List.copyOf(indexed), commitId)));
        return telemetry.step(Sidecar.WriterKind.Optimize, EngineTelemetry.Step.ARM, ctx.sidecars().write(armed))
                .then(ctx.failpoints().hit(WRITER + ".after_arm"))
                .then(effects.onErrorResume(error -> compensate(operationId, error)));
    }

    /** Recovery publishes whatever compaction landed; if even that fails, the sidecar stays for the next open. */
    private <T> Mono<T> compensate(String operationId, Throwable error) {
        return new RecoveryCoordinator(ctx).compensate(operationId)
                .onErrorResume(failed -> {
                    error.addSuppressed(failed);
                    return Mono.error(new RecoveryRequired(operationId, "optimize failed after it started compacting ("
                            + error.getMessage() + ") and could not publish what it compacted", error));
                })
                .then(Mono.error(error));
    }

    /**
     * One table's compaction (if it has tasks), then its index work as one staged CreateIndex transaction on the
     * compacted version (delta segments over the fragments the indexes miss: a compaction never widens an index's
     * coverage, so what was stale at the pin is still stale after it); emits the version it ends at. Lance does not
     * always commit one reserve version per task (observed: one fewer on an indexed table), and the index work may
     * turn out empty at the compacted version: then the sidecar is rewritten with where the table really ends before
     * anything more lands, so recovery always knows where compaction ends and the index commit begins.
     */
    private Mono<Long> effects(Planned planned, java.util.concurrent.atomic.AtomicReference<Sidecar> intent,
                               AtomicInteger compactions, AtomicInteger builds,
                               java.util.function.Consumer<Compacted> onCompacted) {
        Mono<Long> compaction = planned.tasks() == 0 ? Mono.just(planned.pin().version()) : compact(planned)
                .doOnNext(onCompacted)
                .flatMap(done -> ctx.failpoints().hit(WRITER + ".after_compact:" + compactions.incrementAndGet())
                        .thenReturn(done.toVersion()));
        TableRef ref = ctx.ref(planned.pin());
        return compaction.flatMap(from -> new IndexBuilds(ctx.tables())
                .stage(TableSnapshot.pinned(ref, from, planned.pin().rowCount()), planned.indexes(), INDEX_PROPERTIES)
                .flatMap(staged -> {
                    long last = from + (staged.isPresent() ? 1 : 0);
                    Mono<Void> retargeted = last == planned.lastVersion() ? Mono.empty()
                            : Mono.defer(() -> ctx.sidecars().write(retarget(intent, planned, from, last)));
                    return retargeted.onErrorResume(error -> staged.map(ctx.tables()::discard).orElse(Mono.empty())
                                    .then(Mono.error(error)))
                            .then(staged.map(handle -> commitIndexes(planned, handle)
                                            .flatMap(version -> ctx.failpoints().hit(WRITER + ".after_index:"
                                                    + builds.incrementAndGet()).thenReturn(version)))
                                    .orElse(Mono.just(from)));
                }));
    }

    private static final Map<String, String> INDEX_PROPERTIES = Map.of("omnigraph.writer", WRITER);

    private Mono<Long> commitIndexes(Planned planned, dev.omnigraph.storage.StagedHandle handle) {
        return ctx.tables().commitStaged(handle).flatMap(landed -> landed.isExactly(handle.identity())
                ? Mono.just(landed.version())
                : Mono.error(new StorageFault(planned.pin().tableKey() + " index commit landed as " + landed
                        + ", not exactly on " + handle.identity(), null)));
    }

    /** The intent with {@code planned}'s table compacted to {@code compacted}, ending at {@code last}. */
    private static Sidecar retarget(java.util.concurrent.atomic.AtomicReference<Sidecar> intent, Planned planned,
                                    long compacted, long last) {
        return intent.updateAndGet(current -> current.withPayload(current.tables().stream()
                .map(pin -> !pin.tableKey().equals(planned.pin().tableKey()) ? pin : new Sidecar.TablePin(pin.identity(),
                        pin.tableKey(), pin.tablePath(), pin.expectedVersion(), last,
                        pin.confirmedVersion(), pin.tableBranch(), compacted))
                .toList(), current.protocolV3()));
    }

    private Mono<Compacted> compact(Planned planned) {
        TableRef ref = ctx.ref(planned.pin());
        return ctx.tables().compactFragments(ref).flatMap(landed -> {
            long version = landed.orElse(planned.pin().version());
            // Every task commits at most one reserve version, and the rewrite one more.
            if (version <= planned.pin().version() || version > planned.compactedVersion()) {
                return Mono.error(new StorageFault(planned.pin().tableKey() + " compaction landed at version " + version
                        + ", expected at most " + planned.compactedVersion() + ": another writer committed to it "
                        + "meanwhile", null));
            }
            return ctx.tables().open(ref, OptionalLong.of(version)).map(after -> new Compacted(planned.pin().tableKey(),
                    planned.pin().version(), version, planned.fragments(), after.fragmentCount()));
        });
    }

    private Mono<Void> publish(String branch, ManifestState state, Map<String, Long> landed, String commitId,
                               Optional<String> actor) {
        Map<String, Long> expected = new LinkedHashMap<>();
        List<TableEntry> updates = new ArrayList<>();
        landed.forEach((tableKey, version) -> {
            TableEntry pin = state.table(tableKey).orElseThrow();
            expected.put(pin.tableKey(), pin.version());
            updates.add(pin.pinnedAt(version, pin.lanceBranch(), pin.rowCount())); // rows never change
        });
        return ctx.manifest().branchIdentity(branch)
                .flatMap(identity -> ctx.publisher().publish(new PublishRequest(branch, ExpectedHead.any(),
                        Optional.of(identity), expected, updates, commitId, Optional.empty(),
                        Optional.of(actor.orElse(ACTOR)), MaintenanceClock.nowMicros(), WRITER)))
                .then();
    }

    private Sidecar intent(String branch, String operationId, List<Planned> work, Optional<String> actor) {
        List<Sidecar.TablePin> pins = work.stream().map(planned -> {
            TableEntry pin = planned.pin();
            return new Sidecar.TablePin(new Sidecar.Identity(pin.stableTableId(), pin.incarnationId()), pin.tableKey(),
                    TablePaths.recorded(pin.location()), pin.version(), planned.lastVersion(), null,
                    pin.lanceBranch().orElse(null), planned.compactedVersion());
        }).toList();
        return new Sidecar(Sidecar.SCHEMA_VERSION, operationId, Long.toString(MaintenanceClock.nowMicros()),
                GraphBranches.lanceRef(branch).orElse(null), actor.orElse(ACTOR), Sidecar.WriterKind.Optimize, pins, null);
    }
}
