package dev.omnigraph.engine.write;

import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.CommittedVersion;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.CommitConflict;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.PreconditionFailed;
import dev.omnigraph.storage.error.ReadSetChanged;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.ExpectedHead;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.IdempotencyRecord;
import dev.omnigraph.storage.manifest.PublishRequest;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The direct-publish write path shared by mutations and loads. One attempt reads, top to bottom, as the protocol:
 * recovery barrier → capture token → prepare and stage (outside gates) → acquire gates → recheck → arm sidecar →
 * commit each table exactly once → confirm → publish → delete sidecar.
 *
 * <p>Cancellation: the attempt runs detached from its subscriber. A cancel before the sidecar is armed stops the
 * attempt at its next step boundary (staged files are left as reclaimable garbage; nothing is visible). After
 * arming the attempt always runs to its end — success, or {@code RecoveryRequired} with the sidecar kept — so its
 * gates are released exactly once, after its last storage call.
 */
public final class DirectPublishPipeline {
    public static final int MAX_REPREPARES = 32;
    private static final Logger LOG = LoggerFactory.getLogger(DirectPublishPipeline.class);

    private final WriteContext ctx;

    public DirectPublishPipeline(WriteContext ctx) {
        this.ctx = ctx;
    }

    /**
     * One write: what it targets, who does it, how to plan it against a token, and the idempotency key (with the
     * request's hash) it carries, if any.
     */
    public record Request(String branch, Optional<String> actorId, Sidecar.WriterKind writerKind, String operation,
                          String failpointPrefix, Optional<String> ifGraphCommit,
                          Function<WriteToken, Mono<ChangeSet>> prepare, Optional<IdempotentRequest> idempotency) {
        public Request(String branch, Optional<String> actorId, Sidecar.WriterKind writerKind, String operation,
                       String failpointPrefix, Optional<String> ifGraphCommit,
                       Function<WriteToken, Mono<ChangeSet>> prepare) {
            this(branch, actorId, writerKind, operation, failpointPrefix, ifGraphCommit, prepare, Optional.empty());
        }
    }

    /**
     * Runs one write. With an idempotency key, before anything else: a key recorded with this request answers
     * with the original outcome; a duplicate already running in this process is waited for; otherwise this write
     * leads, and its detached run records the key with its commit whatever its subscriber does.
     */
    public Mono<WriteOutcome> run(Request request) {
        if (request.idempotency().isEmpty()) {
            return detached(request, Optional.empty());
        }
        IdempotencyIndex index = ctx.idempotencyIndex();
        return index.built(ctx.manifest()).then(Mono.defer(() -> {
            IdempotencyIndex.Claim claim = index.claim(request.idempotency().get(), ctx.idempotency());
            if (claim instanceof IdempotencyIndex.Claim.Replay replay) {
                return Mono.just(replay.outcome());
            }
            if (claim instanceof IdempotencyIndex.Claim.Wait wait) {
                return wait.leader().map(WriteOutcome::asReplay)
                        .onErrorResume(IdempotencyIndex.LeaderFailed.class, failed -> run(request));
            }
            return detached(request, Optional.of(((IdempotencyIndex.Claim.Lead) claim).ticket()));
        }));
    }

    private Mono<WriteOutcome> detached(Request request, Optional<IdempotencyIndex.Ticket> ticket) {
        return Mono.defer(() -> {
            AtomicBoolean cancelled = new AtomicBoolean();
            Sinks.One<WriteOutcome> result = Sinks.one();
            attempt(request, cancelled, 0)
                    .onErrorResume(AlreadyRecorded.class, recorded -> Mono.just(recorded.outcome()))
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

    private Mono<WriteOutcome> attempt(Request request, AtomicBoolean cancelled, int reprepares) {
        return new RecoveryCoordinator(ctx).heal(request.branch())
                .then(WriteToken.capture(ctx.manifest(), request.branch(), ctx.schemaIrHash()))
                .flatMap(token -> replayIfRecorded(request, token).thenReturn(token))
                .flatMap(token -> {
                    checkPrecondition(request, token);
                    return request.prepare().apply(token).flatMap(changes -> changes.isEmpty()
                            ? Mono.just(WriteOutcome.nothing())
                            : stageAndApply(request, cancelled, token, changes));
                })
                .onErrorResume(Reprepare.class, moved -> reprepares < MAX_REPREPARES
                        ? attempt(request, cancelled, reprepares + 1)
                        : Mono.error(moved.reason()));
    }

    // ---- step 1: recovery barrier ------------------------------------------------------------------------

    /** Under the gates no healing (it would need these gates): any sidecar on this branch blocks the write. */
    private Mono<Void> recoveryBarrier(String branch) {
        String field = GraphBranches.lanceRef(branch).orElse(null);
        return ctx.sidecars().list()
                .filter(sidecar -> java.util.Objects.equals(sidecar.branch(), field))
                .next()
                .flatMap(pending -> Mono.error(new RecoveryRequired(pending.operationId(),
                        "branch " + branch + " has an unfinished " + pending.writerKind() + " write", null)));
    }

    /**
     * A recovery may have published a keyed write of this request since the claim (a roll-forward of an attempt
     * that crashed after arming): the index catches up with the token's manifest and the recorded outcome wins.
     */
    private Mono<Void> replayIfRecorded(Request request, WriteToken token) {
        if (request.idempotency().isEmpty()) {
            return Mono.empty();
        }
        IdempotencyIndex index = ctx.idempotencyIndex();
        return index.sync(ctx.manifest(), request.branch(), token.state().manifest())
                .then(Mono.defer(() -> index.recordedOutcome(request.idempotency().get(), ctx.idempotency())
                        .<Mono<Void>>map(outcome -> Mono.error(new AlreadyRecorded(outcome)))
                        .orElse(Mono.empty())));
    }

    private static void checkPrecondition(Request request, WriteToken token) {
        request.ifGraphCommit().ifPresent(expected -> {
            if (!token.effectiveHead().equals(Optional.of(expected))) {
                throw new PreconditionFailed(expected, token.effectiveHead().orElse("<none>"));
            }
        });
    }

    // ---- steps 2-4: stage outside gates, then take the gates ----------------------------------------------

    private Mono<WriteOutcome> stageAndApply(Request request, AtomicBoolean cancelled, WriteToken token, ChangeSet changes) {
        WriteLimitCheck.enforce(changes, ctx.limits());
        return stageAll(token, changes)
                .flatMap(effects -> ctx.failpoints().hit(FailpointCatalog.point(request.failpointPrefix(), FailpointCatalog.AFTER_PREPARE))
                        .then(Mono.usingWhen(
                                ctx.gates().forWrite(request.branch(), tableKeys(changes)),
                                permit -> underGates(request, cancelled, token, changes, effects),
                                Permit::releaseAsync, (permit, error) -> permit.releaseAsync(), Permit::releaseAsync))
                        .onErrorResume(error -> discardAll(effects).then(Mono.error(error)))
                        .flatMap(outcome -> discardAll(effects).thenReturn(outcome)));
    }

    /** Tables staged at once: fragment writes of different tables are independent (OMNIGRAPH_LOAD_CONCURRENCY). */
    static final int STAGING_CONCURRENCY = stagingConcurrency();

    private static int stagingConcurrency() {
        String value = System.getenv("OMNIGRAPH_LOAD_CONCURRENCY");
        try {
            return value == null || value.isBlank() ? 4 : Math.max(1, Integer.parseInt(value.trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("OMNIGRAPH_LOAD_CONCURRENCY must be a positive integer, got '" + value + "'");
        }
    }

    private Mono<List<StagedEffect>> stageAll(WriteToken token, ChangeSet changes) {
        // Every handle is remembered as soon as it exists, so a failure staging another table cannot leak it.
        List<StagedEffect> staged = java.util.Collections.synchronizedList(new ArrayList<>());
        // flatMapSequential keeps table order (the commit order) while staging tables concurrently.
        return Flux.fromIterable(changes.changes())
                .flatMapSequential(change -> {
                    if (FirstTouchFork.inherited(token, change.pin())) {
                        return Mono.just(FirstTouchFork.deferred(token, change)); // staged on its fork once armed
                    }
                    TableRef ref = ctx.ref(change.pin());
                    return ctx.tables().open(ref, OptionalLong.of(change.pin().version()))
                            .flatMap(snapshot -> stage(snapshot, change))
                            .map(handle -> new StagedEffect(change, handle))
                            .doOnNext(staged::add);
                }, STAGING_CONCURRENCY)
                .collectList()
                .onErrorResume(error -> Mono.defer(() -> discardAll(List.copyOf(staged))).then(Mono.error(error)));
    }

    private Mono<StagedHandle> stage(dev.omnigraph.storage.TableSnapshot snapshot, TableChange change) {
        Map<String, String> properties = Map.of("omnigraph.writer", "direct-publish");
        return switch (change.kind()) {
            case INSERT -> ctx.tables().stageAppend(snapshot, change.rows(), properties);
            case UPSERT -> ctx.tables().stageUpsert(snapshot, change.rows(), "id", properties);
            case OVERWRITE -> ctx.tables().stageOverwrite(snapshot, change.rows(), properties);
            case DELETE -> ctx.tables().stageDelete(snapshot,
                    dev.omnigraph.storage.SqlLiterals.inList("id", change.deleteIds()), properties)
                    .flatMap(Mono::justOrEmpty);
        };
    }

    // ---- steps 5-9: under the gates ------------------------------------------------------------------------

    private Mono<WriteOutcome> underGates(Request request, AtomicBoolean cancelled, WriteToken token, ChangeSet changes,
                                          List<StagedEffect> effects) {
        String operationId = Ulid.next();
        IntentRecords.LineageIntent lineage = new IntentRecords.LineageIntent(Ulid.next(), request.branch(),
                request.actorId(), nowMicros(), request.operation(), request.idempotency().map(keyed ->
                        new IdempotencyRecord(keyed.key(), keyed.requestHash(), changes.affectedNodes(),
                                changes.affectedEdges(), new java.util.TreeMap<>(changes.entitiesByTable()))));
        return recheck(request, token, changes)
                .then(ctx.failpoints().hit(FailpointCatalog.point(request.failpointPrefix(), FailpointCatalog.AFTER_GATES)))
                .then(Mono.defer(() -> cancelled.get()
                        ? Mono.<WriteOutcome>error(new CancellationException("write cancelled before any effect"))
                        : effects.isEmpty()
                                ? Mono.just(WriteOutcome.nothing())
                                : applyArmed(request, operationId, lineage, token, changes, effects)));
    }

    /** Revalidates everything the plan assumed, under the gates and before any effect. */
    private Mono<Void> recheck(Request request, WriteToken token, ChangeSet changes) {
        return recoveryBarrier(request.branch())
                .then(WriteToken.capture(ctx.manifest(), request.branch(), ctx.schemaIrHash()))
                .flatMap(fresh -> replayIfRecorded(request, fresh).thenReturn(fresh))
                .flatMap(fresh -> {
                    checkPrecondition(request, fresh);
                    if (!token.sameAuthority(fresh)) {
                        ReadSetChanged moved = new ReadSetChanged("graph_head:" + request.branch(),
                                token.head().orElse("<none>"), fresh.head().orElse("<none>"));
                        return Mono.error(changes.reprepareOnMovedHead() ? new Reprepare(moved) : moved);
                    }
                    return Flux.fromIterable(changes.changes())
                            .filter(change -> !FirstTouchFork.inherited(token, change.pin())) // the parent may move on
                            .concatMap(change -> requireNoDrift(change.pin())).then();
                });
    }

    /** A table's live HEAD must equal its published pin: anything else is unpublished drift. */
    private Mono<Void> requireNoDrift(TableEntry pin) {
        return ctx.tables().head(ctx.ref(pin)).flatMap(head -> {
            if (head == pin.version()) {
                return Mono.empty();
            }
            if (head > pin.version()) {
                return Mono.error(new Conflict(pin.tableKey() + " has versions past its published pin (HEAD " + head
                        + ", published " + pin.version() + ") that no recovery sidecar covers; run `omnigraph repair`"));
            }
            return Mono.error(new StorageFault(pin.tableKey() + " HEAD " + head + " is below its published pin "
                    + pin.version() + ": the graph root was modified outside omnigraph", null));
        });
    }

    private Mono<WriteOutcome> applyArmed(Request request, String operationId, IntentRecords.LineageIntent lineage,
                                          WriteToken token, ChangeSet changes, List<StagedEffect> effects) {
        Sidecar armed = IntentRecords.armed(ctx, request.writerKind(), operationId, token, lineage, effects);
        String points = request.failpointPrefix();
        List<StagedHandle> forked = java.util.Collections.synchronizedList(new ArrayList<>());
        return ctx.sidecars().write(armed)
                .then(Mono.defer(() -> ctx.failpoints().hit(FailpointCatalog.point(points, FailpointCatalog.AFTER_ARM))
                        .then(new FirstTouchFork(ctx).realize(points, effects, FirstTouchFork.inheritedPins(changes),
                                this::stage, forked))
                        .flatMap(realized -> commitAll(points, operationId, realized, changes)
                                .flatMap(committed -> {
                                    Sidecar confirmed = IntentRecords.confirmed(armed, committed);
                                    return ctx.sidecars().write(confirmed)
                                            .then(ctx.failpoints().hit(FailpointCatalog.point(points, FailpointCatalog.AFTER_CONFIRM)))
                                            .then(publish(request, token, lineage, realized, committed));
                                }))
                        // Handles staged on a fork but never committed are released before recovery runs.
                        .onErrorResume(error -> Flux.fromIterable(List.copyOf(forked))
                                .concatMap(handle -> ctx.tables().discard(handle)).then(Mono.error(error)))
                        .flatMap(commit -> ctx.failpoints().hit(FailpointCatalog.point(points, FailpointCatalog.AFTER_PUBLISH))
                                .then(ctx.failpoints().hit(FailpointCatalog.point(points, FailpointCatalog.BEFORE_SIDECAR_DELETE)))
                                .then(deleteSidecar(operationId))
                                .thenReturn(changes.outcome(Optional.of(commit))))
                        // Only an effect-free failure skips compensation; a publish that lost the head race
                        // (ReadSetChanged) has effects to undo first.
                        .onErrorResume(error -> error instanceof EffectFree free
                                ? Mono.error(free.getCause())
                                : compensate(request, operationId, lineage, changes, error))));
    }

    /**
     * The attempt failed after arming: while still holding the gates, undo its own effects (or finish them if the
     * commit is already published), then report the original error. Only when that fails too does the sidecar
     * stay, and the branch reports {@code RecoveryRequired} until recovery runs.
     */
    private Mono<WriteOutcome> compensate(Request request, String operationId, IntentRecords.LineageIntent lineage,
                                          ChangeSet changes, Throwable original) {
        return new RecoveryCoordinator(ctx).compensate(operationId)
                .flatMap(outcome -> outcome instanceof dev.omnigraph.recovery.SidecarRecovery.Outcome.RolledForward
                        ? ctx.manifest().commitOn(request.branch(), lineage.commitId()).map(changes::outcome)
                        : Mono.<WriteOutcome>error(original))
                .onErrorMap(failure -> failure != original, failure -> {
                    RecoveryRequired stuck = new RecoveryRequired(operationId, request.operation() + " on branch "
                            + request.branch() + " failed after its sidecar was armed (" + original.getMessage()
                            + ") and could not undo itself: " + failure.getMessage(), original);
                    stuck.addSuppressed(failure);
                    return stuck;
                });
    }

    /** Commits each staged transaction once, in table order; each must land exactly at its read version + 1. */
    private Mono<Map<String, CommittedVersion>> commitAll(String points, String operationId, List<StagedEffect> effects,
                                                         ChangeSet changes) {
        Map<String, CommittedVersion> committed = new LinkedHashMap<>();
        return Flux.range(0, effects.size())
                .concatMap(index -> {
                    StagedEffect effect = effects.get(index);
                    return ctx.tables().commitStaged(effect.handle())
                            .flatMap(achieved -> {
                                if (!achieved.isExactly(effect.handle().identity())) {
                                    return Mono.error(new StorageFault(effect.change().tableKey() + " commit landed as "
                                            + achieved + ", not exactly on " + effect.handle().identity(), null));
                                }
                                committed.put(effect.change().tableKey(), achieved);
                                return ctx.failpoints().hit(FailpointCatalog.point(points, FailpointCatalog.AFTER_COMMIT + (index + 1)));
                            })
                            .onErrorResume(CommitConflict.class, conflict -> committed.isEmpty()
                                    ? effectFree(operationId, conflict, changes)
                                    : Mono.error(conflict));
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

    private Mono<GraphCommit> publish(Request request, WriteToken token, IntentRecords.LineageIntent lineage,
                                      List<StagedEffect> effects, Map<String, CommittedVersion> committed) {
        Map<String, Long> expectedPins = new LinkedHashMap<>();
        List<TableEntry> updates = new ArrayList<>();
        for (StagedEffect effect : effects) {
            TableEntry pin = effect.change().pin();
            CommittedVersion landed = committed.get(pin.tableKey());
            expectedPins.put(pin.tableKey(), pin.version());
            updates.add(pin.pinnedAt(landed.version(), pin.lanceBranch(), landed.rowCount()));
        }
        return ctx.publisher().publish(new PublishRequest(request.branch(), new ExpectedHead.Exact(token.head()),
                Optional.of(token.branchIdentity()), expectedPins, updates, lineage.commitId(), Optional.empty(),
                lineage.actorId(), lineage.createdAtMicros(), lineage.operation(), lineage.idempotency()));
    }

    /** The write is durable once published; a sidecar left behind is consumed by the next heal. */
    private Mono<Void> deleteSidecar(String operationId) {
        return ctx.sidecars().delete(operationId).then().onErrorResume(error -> {
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
        return keys;
    }

    static long nowMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000L;
    }

    /** The request's key is already recorded with this request: its outcome answers; never escapes this class. */
    private static final class AlreadyRecorded extends RuntimeException {
        private final WriteOutcome outcome;

        AlreadyRecorded(WriteOutcome outcome) {
            super("idempotency key already recorded", null, false, false);
            this.outcome = outcome;
        }

        WriteOutcome outcome() {
            return outcome;
        }
    }

    /** Wraps a failure after arming that left no effect (its intent already retired); never escapes this class. */
    private static final class EffectFree extends RuntimeException {
        EffectFree(RuntimeException cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    /** The head moved before any effect and the change may be planned again; never escapes this class. */
    private static final class Reprepare extends RuntimeException {
        private final ReadSetChanged reason;

        Reprepare(ReadSetChanged reason) {
            super(reason.getMessage(), null, false, false);
            this.reason = reason;
        }

        ReadSetChanged reason() {
            return reason;
        }
    }
}
