package dev.omnigraph.engine.write;

import dev.omnigraph.engine.gate.Gates;
import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.engine.observe.WriteSummary;
import dev.omnigraph.engine.observe.EngineTelemetry;
import dev.omnigraph.engine.observe.EngineTelemetry.Step;
import dev.omnigraph.engine.write.PipelineSignals.EffectFree;
import dev.omnigraph.engine.write.PipelineSignals.Regroup;
import dev.omnigraph.engine.write.PipelineSignals.Reprepare;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.CommittedVersion;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.IndexSpec;
import dev.omnigraph.storage.SegmentMerge;
import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TransactionIdentity;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.CommitConflict;
import dev.omnigraph.storage.error.PreconditionFailed;
import dev.omnigraph.storage.error.ReadSetChanged;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import io.micrometer.observation.Observation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The direct-publish write path shared by mutations and loads. A write joins its branch's queue; one queue turn
 * reads, top to bottom, as the protocol: heal → branch gate → recovery barrier → capture token → plan each write
 * on top of the ones before it (a group, {@link GroupAssembly}) → table gates → stage and recheck (side by side:
 * staged files are invisible) → arm sidecar → commit each table exactly once → confirm and publish side by side
 * ({@link ConfirmAndPublish}; an append's manifest Update is staged already beside the arm) → delete sidecar → hand each
 * write its outcome.
 *
 * <p>Cancellation: a write runs detached from its subscriber. A cancel before the sidecar is armed drops it at the
 * next step boundary (its group is re-planned without it; staged files are left as reclaimable garbage; nothing
 * of it is visible). After arming the group always runs to its end — success, or {@code RecoveryRequired} with
 * the sidecar kept — so its gates are released exactly once, after its last storage call.
 */
public final class DirectPublishPipeline {
    public static final int MAX_REPREPARES = 4;
    private static final Logger LOG = LoggerFactory.getLogger(DirectPublishPipeline.class);

    private final WriteContext ctx;

    public DirectPublishPipeline(WriteContext ctx) {
        this.ctx = ctx;
    }

    /**
     * One write: what it targets, who does it, how to plan it against a token, the idempotency key (with the
     * request's hash) it carries, if any, and, when it may share a commit with its neighbours in the branch queue,
     * how to plan it on top of them ({@link GroupPlan}), and a merge's source branch, whose gate its turn holds
     * too (it is read, never written, under it).
     */
    public record Request(String branch, Optional<String> actorId, Sidecar.WriterKind writerKind, String operation,
                          String failpointPrefix, Optional<String> ifGraphCommit,
                          Function<WriteToken, Mono<ChangeSet>> prepare, Optional<IdempotentRequest> idempotency,
                          Optional<GroupPlan> groupPlan, Optional<String> mergeSource) {
        /** The branches whose gates the turn holds, in gate order (by name): two opposite merges cannot deadlock. */
        public java.util.SortedSet<String> gatedBranches() {
            TreeSet<String> branches = new TreeSet<>();
            branches.add(branch);
            mergeSource.ifPresent(branches::add);
            return branches;
        }

        public Request(String branch, Optional<String> actorId, Sidecar.WriterKind writerKind, String operation,
                       String failpointPrefix, Optional<String> ifGraphCommit,
                       Function<WriteToken, Mono<ChangeSet>> prepare, Optional<IdempotentRequest> idempotency,
                       Optional<GroupPlan> groupPlan) {
            this(branch, actorId, writerKind, operation, failpointPrefix, ifGraphCommit, prepare, idempotency, groupPlan,
                    Optional.empty());
        }

        public Request(String branch, Optional<String> actorId, Sidecar.WriterKind writerKind, String operation,
                       String failpointPrefix, Optional<String> ifGraphCommit,
                       Function<WriteToken, Mono<ChangeSet>> prepare) {
            this(branch, actorId, writerKind, operation, failpointPrefix, ifGraphCommit, prepare, Optional.empty());
        }

        public Request(String branch, Optional<String> actorId, Sidecar.WriterKind writerKind, String operation,
                       String failpointPrefix, Optional<String> ifGraphCommit,
                       Function<WriteToken, Mono<ChangeSet>> prepare, Optional<IdempotentRequest> idempotency) {
            this(branch, actorId, writerKind, operation, failpointPrefix, ifGraphCommit, prepare, idempotency,
                    Optional.empty());
        }
    }

    /**
     * Plans a write on top of the writes ordered before it in its group: {@code before} is their union (empty for
     * the first); the answer is the union including this write, carrying this write's own entity counts and its
     * own {@code reprepareOnMovedHead}. Only constructive writes (insert/upsert) plan this way.
     */
    @FunctionalInterface
    public interface GroupPlan {
        Mono<ChangeSet> plan(WriteToken token, ChangeSet before);
    }

    /**
     * Runs one write. With an idempotency key, before anything else: a key recorded with this request answers
     * with the original outcome; a duplicate already running in this process is waited for; otherwise this write
     * leads, and its detached run records the key with its commit whatever its subscriber does.
     */
    public Mono<WriteOutcome> run(Request request) {
        return ctx.telemetry().write(request.writerKind(), request.branch(),
                outcome -> new WriteSummary(outcome.commit().map(commit -> commit.id()), outcome.replayed(),
                        outcome.affectedNodes(), outcome.affectedEdges()),
                observation -> admitted(request, observation));
    }

    /** The writes waiting in the branch queues of the root whose gates are {@code gates} (for a gauge). */
    public static int queuedWrites(Gates gates) {
        return BranchQueue.waiting(gates);
    }

    private Mono<WriteOutcome> admitted(Request request, Observation observation) {
        if (request.idempotency().isEmpty()) {
            return detached(request, Optional.empty(), observation);
        }
        IdempotencyIndex index = ctx.idempotencyIndex();
        return index.built(ctx.manifest()).then(Mono.defer(() -> {
            IdempotencyIndex.Claim claim = index.claim(request.idempotency().get(), ctx.idempotency());
            if (claim instanceof IdempotencyIndex.Claim.Replay replay) {
                ctx.telemetry().replayed(request.writerKind());
                return Mono.just(replay.outcome());
            }
            if (claim instanceof IdempotencyIndex.Claim.Wait wait) {
                return wait.leader().map(WriteOutcome::asReplay)
                        .doOnNext(replayed -> ctx.telemetry().replayed(request.writerKind()))
                        .onErrorResume(IdempotencyIndex.LeaderFailed.class, failed -> admitted(request, observation));
            }
            return detached(request, Optional.of(((IdempotencyIndex.Claim.Lead) claim).ticket()), observation);
        }));
    }

    private Mono<WriteOutcome> detached(Request request, Optional<IdempotencyIndex.Ticket> ticket, Observation observation) {
        return Mono.defer(() -> {
            AtomicBoolean cancelled = new AtomicBoolean();
            Sinks.One<WriteOutcome> settled = Sinks.one();
            Sinks.One<WriteOutcome> result = Sinks.one();
            BranchQueue.of(ctx.gates(), request.branch()).submit(new QueuedWrite(this, request, cancelled, settled, observation));
            settled.asMono()
                    .materialize()
                    // The attempt's very end (gates released, staged handles discarded), also when nobody listens.
                    .delayUntil(signal -> ctx.failpoints().hit(
                            FailpointCatalog.point(request.failpointPrefix(), FailpointCatalog.AFTER_ATTEMPT)))
                    .<WriteOutcome>dematerialize()
                    .subscribe(
                            outcome -> {
                                ticket.ifPresent(lead -> lead.finish(outcome, ctx.idempotency()));
                                result.tryEmitValue(outcome);
                            },
                            failure -> {
                                ticket.ifPresent(IdempotencyIndex.Ticket::fail);
                                result.tryEmitError(failure);
                            },
                            () -> {
                                ticket.ifPresent(IdempotencyIndex.Ticket::fail);
                                result.tryEmitEmpty();
                            });
            return result.asMono().doOnCancel(() -> cancelled.set(true));
        });
    }

    WriteContext context() {
        return ctx;
    }

    /**
     * One turn of a branch queue ({@link BranchQueue}): heal, queue on the branch gate, then plan and publish the
     * writes that arrived while the previous turn ran as one group (or several, when limits split them). The head
     * a group is planned against cannot move in this process before it publishes, so a busy branch costs a wait
     * in FIFO order, never a re-prepare. Outcomes reach the writes after the gates are released.
     */
    Mono<Void> runTurn(QueuedWrite first, Supplier<List<QueuedWrite>> take) {
        Request lead = first.request();
        EngineTelemetry telemetry = ctx.telemetry();
        Settlements settled = new Settlements();
        AtomicReference<List<QueuedWrite>> taken = new AtomicReference<>();
        Supplier<List<QueuedWrite>> writes = () -> taken.updateAndGet(already -> already != null ? already : take.get());
        RecoveryCoordinator recovery = new RecoveryCoordinator(ctx);
        return Flux.fromIterable(lead.gatedBranches())
                .concatMap(branch -> telemetry.step(lead.writerKind(), Step.HEAL, recovery.heal(branch))).then()
                .then(Mono.usingWhen(telemetry.step(lead.writerKind(), Step.GATE_WAIT,
                                ctx.gates().forBranches(lead.gatedBranches())),
                        branchPermit -> Mono.defer(() -> groups(writes.get(), settled, 0)),
                        Permit::releaseAsync, (permit, error) -> permit.releaseAsync(), Permit::releaseAsync))
                .onErrorResume(error -> Mono.fromRunnable(() -> settled.failAll(writes.get(), error)))
                .then(Mono.<Void>fromRunnable(() -> settled.emit(writes.get())))
                // The steps of this turn are children of its first write's observation.
                .contextWrite(EngineTelemetry.under(first.observation()));
    }

    /** Steps 1-3 at the head of the branch queue: barrier, token, then each write planned on top of the earlier. */
    private Mono<Void> groups(List<QueuedWrite> writes, Settlements settled, int reprepares) {
        if (writes.isEmpty()) {
            return Mono.empty();
        }
        Request lead = writes.get(0).request();
        String branch = lead.branch();
        Mono<reactor.util.function.Tuple2<WriteToken, Optional<GroupAssembly.Group>>> planned = ctx.telemetry().step(
                lead.writerKind(), Step.PLAN, KeptTokens.first(ctx, writes, branch, reprepares)
                        .flatMap(token -> KeptTokens.assemble(ctx, token, writes, settled, this::replayIfRecorded)
                                .map(assembled -> reactor.util.function.Tuples.of(token, assembled))));
        return Flux.fromIterable(lead.gatedBranches()).concatMap(new Recheck(ctx)::recoveryBarrier).then()
                .then(planned)
                .<Void>flatMap(plan -> plan.getT2().isEmpty()
                        ? groups(writes, settled, reprepares + 1) // the kept state was stale: plan on the live one
                        : publishGroup(plan.getT1(), plan.getT2().get(), settled, reprepares)
                                .then(Mono.defer(() -> groups(plan.getT2().get().leftover(), settled, 0))));
    }

    /**
     * Steps 2-9 for an assembled group, then every accepted write gets its own outcome of the one commit. Before
     * any effect: a cancelled member is dropped and the rest replanned; a head moved by another process replans
     * the rest and fails the strict ones ({@code ReadSetChanged}). Any other failure fails the whole group.
     */
    private Mono<Void> publishGroup(WriteToken token, GroupAssembly.Group group, Settlements settled, int reprepares) {
        if (group.accepted().isEmpty()) {
            return Mono.empty();
        }
        List<QueuedWrite> members = group.accepted().stream().map(GroupAssembly.Accepted::write).toList();
        Sidecar.WriterKind kind = group.publication().writerKind();
        return stageAndApply(group.publication(), group::anyCancelled, token, group.union())
                .doOnNext(commit -> {
                    if (commit.isPresent()) {
                        ctx.telemetry().grouped(kind, members.size());
                    }
                    group.accepted().forEach(member -> settled.succeed(member.write(),
                            commit.isPresent() ? member.own().outcome(commit) : WriteOutcome.nothing()));
                })
                .then()
                .onErrorResume(Regroup.class, regroup -> {
                    members.stream().filter(write -> write.cancelled().get()).forEach(write -> settled.fail(write,
                            new CancellationException("write cancelled before any effect")));
                    List<QueuedWrite> kept = members.stream().filter(write -> !write.cancelled().get()).toList();
                    ctx.telemetry().retried(kind, "regroup", kept.size());
                    return groups(kept, settled, reprepares);
                })
                .onErrorResume(Reprepare.class, moved -> {
                    List<QueuedWrite> again = new ArrayList<>();
                    for (GroupAssembly.Accepted member : group.accepted()) {
                        if (moved.unverifiedToken()
                                || member.own().reprepareOnMovedHead() && reprepares < MAX_REPREPARES) {
                            again.add(member.write());
                        } else {
                            settled.fail(member.write(), moved.reason());
                        }
                    }
                    ctx.telemetry().retried(kind, "reprepare", again.size());
                    return groups(again, settled, reprepares + 1);
                })
                .onErrorResume(error -> Mono.fromRunnable(() -> settled.failAll(members, error)));
    }

    /**
     * A recovery may have published a keyed write of this request since the claim (a roll-forward of an attempt
     * that crashed after arming): the index catches up with the token's manifest and the recorded outcome wins.
     */
    private Mono<Optional<WriteOutcome>> replayIfRecorded(Request request, WriteToken token) {
        if (request.idempotency().isEmpty()) {
            return Mono.just(Optional.empty());
        }
        IdempotencyIndex index = ctx.idempotencyIndex();
        return index.sync(ctx.manifest(), request.branch(), token.state().manifest())
                .then(Mono.fromSupplier(() -> index.recordedOutcome(request.idempotency().get(), ctx.idempotency())));
    }

    static void checkPrecondition(Optional<String> ifGraphCommit, WriteToken token) {
        ifGraphCommit.ifPresent(expected -> {
            if (!token.effectiveHead().equals(Optional.of(expected))) {
                throw new PreconditionFailed(expected, token.effectiveHead().orElse("<none>"));
            }
        });
    }

    // ---- steps 2-5: table gates, then stage and recheck side by side ------------------------------------

    /**
     * Staging writes only invisible files and the recheck only reads, so both run at once under the table gates
     * (in this process the branch gate already orders every writer of the branch). Where every planned
     * transaction can be named before it exists ({@link ArmBesideStaging}), the sidecar is armed as soon as the
     * recheck passed, beside staging; otherwise once both are done. Either way the first effect waits for the
     * durable arm. Failpoints keep their meaning: {@code after_prepare} = staged, {@code after_gates} = rechecked
     * (the arm follows it).
     */
    private Mono<Optional<GraphCommit>> stageAndApply(Publication request, BooleanSupplier cancelled, WriteToken token,
                                                      ChangeSet changes) {
        String points = request.failpointPrefix();
        String operationId = Ulid.next(); // also the intent id every transaction staged here carries
        Map<String, String> properties = TransactionIdentity.withIntent(PROPERTIES, operationId);
        return new EffectPlan(ctx).planned(token, changes).flatMap(planned -> stageAndApply(request, cancelled, token, changes, points,
                operationId, properties, planned));
    }

    private Mono<Optional<GraphCommit>> stageAndApply(Publication request, BooleanSupplier cancelled, WriteToken token,
                                                      ChangeSet changes, String points, String operationId,
                                                      Map<String, String> properties, List<StagedEffect> planned) {
        EngineTelemetry telemetry = ctx.telemetry();
        Sidecar.WriterKind kind = request.writerKind();
        Mono<List<StagedEffect>> staging = telemetry.step(kind, Step.STAGE, stageAll(planned, properties))
                .flatMap(effects -> ctx.failpoints().hit(FailpointCatalog.point(points, FailpointCatalog.AFTER_PREPARE))
                        .then(Mono.just(effects))
                        .onErrorResume(error -> discardAll(effects).then(Mono.error(error))));
        Mono<Void> rechecking = telemetry.step(kind, Step.RECHECK, new Recheck(ctx).recheck(request, token, changes))
                .then(ctx.failpoints().hit(FailpointCatalog.point(points, FailpointCatalog.AFTER_GATES)));
        if (ArmBesideStaging.applies(changes, planned)) {
            IntentRecords.LineageIntent lineage = lineage(request);
            Sidecar armed = IntentRecords.armed(ctx, request.writerKind(), operationId, token, lineage, planned,
                    changes.pointers());
            // The cancel check and the arm follow the recheck and run beside staging; a cancel after the arm no
            // longer drops the write.
            Mono<Void> arming = arm(points, armed, rechecking.then(Mono.defer(() -> cancelled.getAsBoolean()
                    ? Mono.<Void>error(new Regroup()) : Mono.<Void>empty()))).cache();
            return Mono.usingWhen(ctx.gates().forTables(request.branch(), tableKeys(changes)), permit -> Mono.deferContextual(view -> {
                // Started now (in this turn's context, for its step observation); its outcome is read below, always.
                arming.contextWrite(view).subscribe(done -> { }, error -> { });
                return staging.materialize().flatMap(staged -> {
                    if (staged.isOnError()) {
                        return arming.materialize().flatMap(arm -> arm.isOnError() && arm.getThrowable() instanceof EffectFree notArmed
                                ? Mono.error(stagingFirst(staged.getThrowable(), notArmed.getCause()))
                                : retire(operationId, staged.getThrowable()));
                    }
                    List<StagedEffect> effects = staged.get();
                    // Nothing commits before the arm is durable and every staged transaction is the one it names.
                    return applyArmed(request, operationId, lineage, token, changes, effects, armed,
                                    arming.then(Mono.defer(() -> ArmBesideStaging.verify(armed, effects))))
                            .onErrorResume(error -> discardAll(effects).then(Mono.error(error)))
                            .flatMap(commit -> discardAll(effects).thenReturn(commit));
                });
            }), Permit::releaseAsync, (permit, error) -> permit.releaseAsync(), Permit::releaseAsync);
        }
        return Mono.usingWhen(
                ctx.gates().forTables(request.branch(), tableKeys(changes)),
                permit -> Mono.zip(staging.materialize(), rechecking.materialize()).flatMap(both -> {
                    if (both.getT1().isOnError()) {
                        return Mono.error(stagingFirst(both.getT1().getThrowable(), both.getT2().getThrowable()));
                    }
                    List<StagedEffect> effects = both.getT1().get();
                    Mono<Optional<GraphCommit>> applied = both.getT2().isOnError()
                            ? Mono.error(both.getT2().getThrowable())
                            : underGates(request, cancelled, token, changes, effects, operationId);
                    return applied.onErrorResume(error -> discardAll(effects).then(Mono.error(error)))
                            .flatMap(commit -> discardAll(effects).thenReturn(commit));
                }),
                Permit::releaseAsync, (permit, error) -> permit.releaseAsync(), Permit::releaseAsync);
    }

    /**
     * A staging failure comes first, as when staging preceded the recheck, unless the plan was made on a kept
     * state the recheck found stale (then the staging failure may be the staleness).
     */
    private static Throwable stagingFirst(Throwable staging, Throwable recheck) {
        return recheck instanceof Reprepare stale && stale.unverifiedToken() ? stale : staging;
    }

    /**
     * {@code before} (the recheck and cancel check of an arm beside staging), the durable arm, then {@code
     * after_arm}. Anything that fails before the sidecar is durable is refused as it is (nothing to compensate).
     */
    private Mono<Void> arm(String points, Sidecar armed, Mono<Void> before) {
        return before.then(ctx.telemetry().step(armed.writerKind(), Step.ARM, Mono.defer(() -> ctx.sidecars().write(armed))))
                .onErrorMap(error -> error instanceof RuntimeException failed ? new EffectFree(failed) : error)
                .then(Mono.defer(() -> ctx.failpoints().hit(FailpointCatalog.point(points, FailpointCatalog.AFTER_ARM))));
    }

    /**
     * Armed beside staging, but staging failed: nothing committed, so the intent is retired and the failure
     * reported. A sidecar that cannot be deleted stays for recovery (which finds no movement and rolls back), and
     * the branch reports {@code RecoveryRequired} naming the staging failure, as {@link #compensate} does.
     */
    private Mono<Optional<GraphCommit>> retire(String operationId, Throwable failure) {
        return ctx.sidecars().delete(operationId)
                .onErrorMap(deleteFailed -> stuck(operationId, "staging failed after the sidecar was armed ("
                        + failure.getMessage() + ") and the sidecar could not be removed", failure, deleteFailed))
                .then(Mono.error(failure));
    }

    private static IntentRecords.LineageIntent lineage(Publication request) {
        return new IntentRecords.LineageIntent(Ulid.next(), request.branch(), request.actorId(), nowMicros(),
                request.operation(), request.idempotency(), request.mergedParent());
    }

    /**
     * Tables staged at once ({@link LoadConcurrency}); every handle checked the value when it opened, so reading it
     * here cannot fail a write.
     */
    static final int STAGING_CONCURRENCY = LoadConcurrency.fromEnvironment();

    /** Stages each planned effect on its pin (a deferred one is staged on its fork once armed). */
    private Mono<List<StagedEffect>> stageAll(List<StagedEffect> planned, Map<String, String> properties) {
        // Every handle is remembered as soon as it exists, so a failure staging another table cannot leak it.
        List<StagedEffect> staged = java.util.Collections.synchronizedList(new ArrayList<>());
        // flatMapSequential keeps table order (the commit order) while staging tables concurrently.
        return Flux.fromIterable(planned)
                .flatMapSequential(effect -> {
                    TableChange change = effect.change();
                    if (FirstTouchFork.isDeferred(effect)) {
                        return Mono.just(effect); // deferred: staged on its fork once armed
                    }
                    TableRef ref = ctx.ref(change.pin());
                    // The stage opens the pinned version itself: no separate open.
                    return stageFirst(dev.omnigraph.storage.TableSnapshot.pinned(ref, change.pin().version(),
                                    change.pin().rowCount()), effect, properties)
                            .map(handle -> new StagedEffect(change, handle, effect.chain()))
                            .doOnNext(staged::add);
                }, STAGING_CONCURRENCY)
                .collectList()
                .onErrorResume(error -> Mono.defer(() -> discardAll(List.copyOf(staged))).then(Mono.error(error)));
    }

    private static final Map<String, String> PROPERTIES = Map.of("omnigraph.writer", "direct-publish");

    /** The effect's first transaction: the whole change, or chunk 1 of its chain (with its mark). */
    private Mono<StagedHandle> stageFirst(dev.omnigraph.storage.TableSnapshot snapshot, StagedEffect effect,
                                          Map<String, String> properties) {
        return effect.chain().isEmpty() ? stage(snapshot, effect.change(), properties)
                : stageChunk(snapshot, effect, 1);
    }

    private Mono<StagedHandle> stageChunk(dev.omnigraph.storage.TableSnapshot snapshot, StagedEffect effect, int chunk) {
        ChunkChain chain = effect.chain().orElseThrow();
        // Every declared chunk must land (the sidecar pins expected + length): one that would stage nothing is a
        // fault, never a silently shorter chain.
        Mono<StagedHandle> staged = chain.isIndexChunk(chunk)
                ? ctx.tables().stageIndexes(snapshot, chain.indexes(), chain.properties(chunk, PROPERTIES),
                        SegmentMerge.TIERED).flatMap(Mono::justOrEmpty)
                : stage(snapshot, chain.chunk(chunk, effect.change().pin()), chain.properties(chunk, PROPERTIES));
        return staged
                .switchIfEmpty(Mono.error(() -> new StorageFault("chunk " + chunk + " of the chained change to "
                        + effect.change().tableKey() + " staged nothing; the chain was planned otherwise", null)));
    }

    private Mono<StagedHandle> stage(dev.omnigraph.storage.TableSnapshot snapshot, TableChange change,
                                     Map<String, String> properties) {
        return switch (change.kind()) {
            case INSERT, APPEND -> ctx.tables().stageAppend(snapshot, change.rows(), properties);
            case UPSERT -> ctx.tables().stageUpsert(snapshot, change.rows(), "id", properties);
            case OVERWRITE -> ctx.tables().stageOverwrite(snapshot, change.rows(), properties);
            case ROW_DELTA -> ctx.tables().stageRowDelta(snapshot, change.rows(), change.deleteIds(), "id", properties)
                    .flatMap(Mono::justOrEmpty);
            case DELETE -> ctx.tables().stageDelete(snapshot,
                    dev.omnigraph.storage.SqlLiterals.inList("id", change.deleteIds()), properties)
                    .flatMap(Mono::justOrEmpty);
        };
    }

    // ---- steps 5-9: under the gates ------------------------------------------------------------------------

    private Mono<Optional<GraphCommit>> underGates(Publication request, BooleanSupplier cancelled, WriteToken token,
                                                   ChangeSet changes, List<StagedEffect> effects, String operationId) {
        IntentRecords.LineageIntent lineage = lineage(request);
        return Mono.defer(() -> cancelled.getAsBoolean()
                ? Mono.<Optional<GraphCommit>>error(new Regroup())
                : effects.isEmpty() && !changes.commitWhenEmpty()
                        ? Mono.just(Optional.<GraphCommit>empty())
                        : effects.isEmpty() ? lineageOnly(request, token, lineage, changes.pointers())
                        : armThenApply(request, operationId, lineage, token, changes, effects));
    }

    /** Arming after staging: the sidecar names the staged transactions. */
    private Mono<Optional<GraphCommit>> armThenApply(Publication request, String operationId,
                                                     IntentRecords.LineageIntent lineage, WriteToken token,
                                                     ChangeSet changes, List<StagedEffect> effects) {
        Sidecar armed = IntentRecords.armed(ctx, request.writerKind(), operationId, token, lineage, effects,
                changes.pointers());
        return applyArmed(request, operationId, lineage, token, changes, effects, armed,
                arm(request.failpointPrefix(), armed, Mono.empty()));
    }

    /** From the arm ({@code arming}: the durable arm, or nothing when it is already durable) to the answer. */
    private Mono<Optional<GraphCommit>> applyArmed(Publication request, String operationId,
                                                   IntentRecords.LineageIntent lineage, WriteToken token,
                                                   ChangeSet changes, List<StagedEffect> effects, Sidecar armed,
                                                   Mono<Void> arming) {
        String points = request.failpointPrefix();
        List<StagedHandle> forked = java.util.Collections.synchronizedList(new ArrayList<>());
        // Arm, forks, commits: subscribed by both the publish (which stages the manifest Update meanwhile) and the
        // confirmation, so cached.
        Mono<ConfirmAndPublish.Landed> landed = arming
                .then(Mono.defer(() -> new FirstTouchFork(ctx).realize(points, effects, FirstTouchFork.inheritedPins(changes),
                                (snapshot, effect) -> stageFirst(snapshot, effect, PROPERTIES), forked)
                        .flatMap(realized -> ctx.telemetry().step(request.writerKind(), Step.TABLE_COMMIT,
                                        commitAll(points, operationId, realized, changes))
                                .map(committed -> new ConfirmAndPublish.Landed(realized, committed)))))
                .cache();
        return Mono.defer(() -> new ConfirmAndPublish(ctx).run(request, token, lineage, armed, effects,
                changes.pointers(), landed)
                        // Handles staged on a fork but never committed are released before recovery runs.
                        .onErrorResume(error -> Flux.fromIterable(List.copyOf(forked))
                                .concatMap(handle -> ctx.tables().discard(handle)).then(Mono.error(error)))
                        // Published: the handle's kept key sets move on with what landed (CommittedKeyCache.carry).
                        .flatMap(commit -> landed.doOnNext(done -> CommittedKeyCache.of(ctx).carry(request.branch(), changes,
                                        done.committed(), indexBuilds(done.effects())))
                                .then(ctx.failpoints().hit(FailpointCatalog.point(points, FailpointCatalog.BEFORE_SIDECAR_DELETE)))
                                .then(ctx.telemetry().step(request.writerKind(), Step.SIDECAR_DELETE, deleteSidecar(operationId)))
                                .thenReturn(Optional.of(commit)))
                        // Only an effect-free failure skips compensation; a publish that lost the head race
                        // (ReadSetChanged) has effects to undo first.
                        .onErrorResume(error -> error instanceof EffectFree free
                                ? Mono.error(free.getCause())
                                : compensate(request, operationId, lineage, error)));
    }

    /**
     * The attempt failed after arming: while still holding the gates, undo its own effects (or finish them if the
     * commit is already published), then report the original error. Only when that fails too does the sidecar
     * stay, and the branch reports {@code RecoveryRequired} until recovery runs.
     */
    private Mono<Optional<GraphCommit>> compensate(Publication request, String operationId,
                                                   IntentRecords.LineageIntent lineage, Throwable original) {
        return ctx.telemetry().step(request.writerKind(), Step.COMPENSATE, new RecoveryCoordinator(ctx).compensate(operationId))
                .doOnNext(outcome -> ctx.telemetry().recovered("compensate", operationId, outcome))
                .flatMap(outcome -> outcome instanceof dev.omnigraph.recovery.SidecarRecovery.Outcome.RolledForward
                        ? ctx.manifest().commitOn(request.branch(), lineage.commitId())
                        : Mono.<Optional<GraphCommit>>error(original))
                .onErrorMap(failure -> failure != original, failure -> stuck(operationId, request.operation()
                        + " on branch " + request.branch() + " failed after its sidecar was armed (" + original.getMessage()
                        + ") and could not undo itself", original, failure));
    }

    /** The write failed ({@code original}) and so did clearing its armed sidecar: recovery must run first. */
    private static RecoveryRequired stuck(String operationId, String what, Throwable original, Throwable cleanup) {
        RecoveryRequired stuck = new RecoveryRequired(operationId, what + ": " + cleanup.getMessage(), original);
        stuck.addSuppressed(cleanup);
        return stuck;
    }

    /** Commits each staged transaction once, in table order; each must land exactly at its read version + 1. */
    private Mono<Map<String, CommittedVersion>> commitAll(String points, String operationId, List<StagedEffect> effects,
                                                         ChangeSet changes) {
        Map<String, CommittedVersion> committed = new LinkedHashMap<>();
        return Flux.range(0, effects.size())
                .concatMap(index -> {
                    StagedEffect effect = effects.get(index);
                    return ctx.tables().commitStaged(effect.handle())
                            .flatMap(achieved -> achieved.isExactly(effect.handle().identity()) ? Mono.just(achieved)
                                    : Mono.<CommittedVersion>error(new StorageFault(effect.change().tableKey()
                                            + " commit landed as " + achieved + ", not exactly on " + effect.handle().identity(), null)))
                            .onErrorResume(CommitConflict.class, conflict -> committed.isEmpty()
                                    ? effectFree(operationId, conflict, changes).then(Mono.<CommittedVersion>empty())
                                    : Mono.error(conflict))
                            // A chained effect's later chunks: staged and committed one by one (a conflict now is after an effect).
                            .flatMap(first -> effect.chain().isEmpty() ? Mono.just(first)
                                    : new ChainCommit(ctx).rest(points, index + 1, effect, first,
                                            (snapshot, chunk) -> stageChunk(snapshot, effect, chunk)))
                            .flatMap(achieved -> {
                                committed.put(effect.change().tableKey(), achieved);
                                if (effect.change().kind() != TableChange.Kind.OVERWRITE) {
                                    IndexedVersions.of(ctx).carry(effect.handle().ref(), effect.change().pin().version(),
                                            achieved.version(), effect.chain().map(ChunkChain::indexes).orElse(List.of())
                                                    .stream().map(IndexSpec::name).toList());
                                }
                                return ctx.failpoints().hit(FailpointCatalog.point(points, FailpointCatalog.AFTER_COMMIT + (index + 1)));
                            });
                })
                .then(Mono.fromCallable(() -> Map.copyOf(committed)));
    }

    /** A conflict on the first commit: nothing landed, so the intent is retired and the write replanned or refused. */
    private Mono<Void> effectFree(String operationId, CommitConflict conflict, ChangeSet changes) {
        ReadSetChanged moved = new ReadSetChanged("table " + conflict.dataset(), "read version " + conflict.readVersion(),
                "changed by a concurrent writer");
        return ctx.sidecars().delete(operationId)
                .then(Mono.error(new EffectFree(changes.reprepareOnMovedHead() ? new Reprepare(moved) : moved)));
    }

    /**
     * A commit without data effects (lineage, and pins switched without a data write): the publish is the only
     * effect, atomic by itself, so no sidecar.
     */
    private Mono<Optional<GraphCommit>> lineageOnly(Publication request, WriteToken token,
                                                    IntentRecords.LineageIntent lineage, List<PointerSwitch> pointers) {
        return ctx.publisher().publish(ConfirmAndPublish.publishRequest(request, token, lineage, List.of(), effect -> null,
                        pointers))
                .flatMap(commit -> ctx.failpoints().hit(FailpointCatalog.point(request.failpointPrefix(), FailpointCatalog.AFTER_PUBLISH))
                        .thenReturn(Optional.of(commit)));
    }

    /** The tables whose effect ended with an index build (a version that changes no row), by table key. */
    private static java.util.Set<String> indexBuilds(List<StagedEffect> effects) {
        return effects.stream().filter(effect -> effect.chain().map(chain -> !chain.indexes().isEmpty()).orElse(false))
                .map(effect -> effect.change().tableKey()).collect(java.util.stream.Collectors.toSet());
    }

    /** The write is durable once published; a sidecar left behind is consumed by the next heal. */
    private Mono<Void> deleteSidecar(String operationId) {
        return ctx.sidecars().deletePublished(operationId).then().onErrorResume(error -> {
            LOG.warn("published write {} could not delete its sidecar; the next heal will: {}", operationId, error.toString());
            return Mono.empty();
        });
    }

    private Mono<Void> discardAll(List<StagedEffect> effects) {
        return Flux.fromIterable(effects).filter(effect -> !FirstTouchFork.isDeferred(effect))
                .concatMap(effect -> ctx.tables().discard(effect.handle())).then();
    }

    private static TreeSet<String> tableKeys(ChangeSet changes) {
        TreeSet<String> keys = new TreeSet<>();
        changes.changes().forEach(change -> keys.add(change.tableKey()));
        changes.pointers().forEach(pointer -> keys.add(pointer.tableKey()));
        return keys;
    }

    static long nowMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000L;
    }
}
