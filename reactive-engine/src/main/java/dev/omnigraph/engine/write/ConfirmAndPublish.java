package dev.omnigraph.engine.write;

import dev.omnigraph.engine.observe.EngineTelemetry;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.CommittedVersion;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.manifest.ExpectedHead;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.PublishRequest;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Steps 8 and 9 of an armed write: the confirmation and the publish run side by side once every table commit
 * landed, and the write is answered only when both have ended.
 *
 * <p>Why the manifest commit need not wait for the confirmation: the confirmation only decides what recovery does
 * with a write whose tables committed but whose publish did not land (roll forward rather than back), and such a
 * write was never acknowledged, so either outcome is allowed. Once the publish landed, recovery finds its commit
 * visible and finalizes the sidecar whatever phase it records. A publish that fails is compensated (rolled back)
 * as before; a confirmation that fails beside a publish that landed changes nothing (the sidecar is deleted next).
 *
 * <p>The manifest Update is planned and staged early when every table's landed version and row count can be
 * predicted (appends and upserts on existing tables: version + 1, rows + the staged net rows): then it is staged beside the arm and the
 * table commits, and committed as soon as they landed as predicted. A table that landed otherwise discards it and
 * plans the publish again from what landed. Staged files are invisible until committed.
 */
final class ConfirmAndPublish {
    private static final Logger LOG = LoggerFactory.getLogger(ConfirmAndPublish.class);

    /** The armed write's effects as realized (forks staged) and each table's committed version. */
    record Landed(List<StagedEffect> effects, Map<String, CommittedVersion> committed) {
    }

    /** Internal signal: a table landed otherwise than the early-staged manifest Update assumed. */
    private static final class Mispredicted extends RuntimeException {
        Mispredicted() {
            super("a table landed otherwise than predicted", null, false, false);
        }
    }

    private final WriteContext ctx;

    ConfirmAndPublish(WriteContext ctx) {
        this.ctx = ctx;
    }

    /**
     * Subscribes {@code landed} (arm, forks, table commits; cached by the caller) and, beside it, stages the
     * predicted manifest Update; then confirms and publishes side by side. Emits the published commit once both
     * ended; fails with the confirmation's error, else the publish's, when nothing was published.
     */
    Mono<GraphCommit> run(Publication request, WriteToken token, IntentRecords.LineageIntent lineage, Sidecar armed,
                          List<StagedEffect> staged, List<PointerSwitch> pointers, Mono<Landed> landed) {
        String points = request.failpointPrefix();
        Mono<Void> beforeManifestCommit = Mono.defer(() -> ctx.failpoints().hit(
                FailpointCatalog.point(points, FailpointCatalog.BEFORE_MANIFEST_COMMIT)));
        Mono<GraphCommit> fromLanded = landed.flatMap(done -> ctx.publisher().publish(
                publishRequest(request, token, lineage, done.effects(), effect -> landedPin(effect, done.committed()), pointers),
                beforeManifestCommit));
        Mono<GraphCommit> publishing = predicted(request, token, lineage, staged, pointers)
                .map(early -> ctx.publisher().publish(early, landed.flatMap(done -> asPredicted(early, done)
                                ? beforeManifestCommit : Mono.error(new Mispredicted())))
                        .onErrorResume(Mispredicted.class, mispredicted -> fromLanded))
                .orElse(fromLanded)
                .transform(publish -> ctx.telemetry().step(request.writerKind(), EngineTelemetry.Step.PUBLISH, publish))
                .delayUntil(commit -> ctx.failpoints().hit(FailpointCatalog.point(points, FailpointCatalog.AFTER_PUBLISH)));
        Mono<Void> confirming = landed
                .flatMap(done -> ctx.telemetry().step(request.writerKind(), EngineTelemetry.Step.CONFIRM,
                        ctx.sidecars().write(IntentRecords.confirmed(armed, done.committed()))))
                .then(Mono.defer(() -> ctx.failpoints().hit(FailpointCatalog.point(points, FailpointCatalog.AFTER_CONFIRM))));
        return Mono.zip(publishing.materialize(), confirming.materialize()).flatMap(both -> {
            if (both.getT1().hasValue()) {
                if (both.getT2().isOnError()) {
                    LOG.warn("write {} published, but its confirmation failed (the sidecar is removed next): {}",
                            lineage.commitId(), both.getT2().getThrowable().toString());
                }
                return Mono.just(both.getT1().get());
            }
            Throwable failure = both.getT2().isOnError() ? both.getT2().getThrowable() : both.getT1().getThrowable();
            return Mono.error(failure != null ? failure
                    : new IllegalStateException("publish of " + lineage.commitId() + " ended without a commit"));
        });
    }

    /**
     * The publish of {@code effects}, each table moving from its pin to {@code landedPin}, and of {@code pointers},
     * pins switched without a data write.
     */
    static PublishRequest publishRequest(Publication request, WriteToken token, IntentRecords.LineageIntent lineage,
                                         List<StagedEffect> effects, Function<StagedEffect, TableEntry> landedPin,
                                         List<PointerSwitch> pointers) {
        Map<String, Long> expectedPins = new LinkedHashMap<>();
        List<TableEntry> updates = new ArrayList<>();
        for (StagedEffect effect : effects) {
            TableEntry pin = effect.change().pin();
            expectedPins.put(pin.tableKey(), pin.version());
            updates.add(landedPin.apply(effect));
        }
        for (PointerSwitch pointer : pointers) {
            expectedPins.put(pointer.tableKey(), pointer.pin().version());
            updates.add(pointer.to());
        }
        return new PublishRequest(request.branch(), new ExpectedHead.Exact(token.head()),
                Optional.of(token.branchIdentity()), expectedPins, updates, lineage.commitId(), lineage.mergedParent(),
                lineage.actorId(), lineage.createdAtMicros(), lineage.operation(), lineage.idempotency());
    }

    private static TableEntry landedPin(StagedEffect effect, Map<String, CommittedVersion> committed) {
        TableEntry pin = effect.change().pin();
        CommittedVersion landed = committed.get(pin.tableKey());
        return pin.pinnedAt(landed.version(), pin.lanceBranch(), landed.rowCount());
    }

    /**
     * The publish as it will be if every table lands exactly on its pin: only for inserts and upserts that know
     * their net rows ({@link dev.omnigraph.storage.StagedHandle#rowDelta}: an append's rows, an upsert's rows minus
     * those its key scan found to replace) on tables that exist at their pin with a known row count (a first-touch
     * fork is staged only after arming), and no switched pointers. Merges (row deltas, pointers) keep planning
     * their publish from what landed: they are not this hot path.
     */
    private static Optional<PublishRequest> predicted(Publication request, WriteToken token,
                                                      IntentRecords.LineageIntent lineage, List<StagedEffect> staged,
                                                      List<PointerSwitch> pointers) {
        if (!pointers.isEmpty()) {
            return Optional.empty();
        }
        for (StagedEffect effect : staged) {
            TableChange change = effect.change();
            boolean insertOrUpsert = change.kind() == TableChange.Kind.INSERT || change.kind() == TableChange.Kind.UPSERT;
            if (FirstTouchFork.isDeferred(effect) || !insertOrUpsert || effect.handle().rowDelta().isEmpty()
                    || change.pin().rowCount() < 0 || effect.handle().identity().readVersion() != change.pin().version()) {
                return Optional.empty();
            }
        }
        return Optional.of(publishRequest(request, token, lineage, staged, effect -> {
            TableEntry pin = effect.change().pin();
            // One version per transaction: the data's, and an index build's after it (which adds no row).
            return pin.pinnedAt(pin.version() + effect.transactions(), pin.lanceBranch(),
                    pin.rowCount() + effect.handle().rowDelta().getAsLong());
        }, List.of()));
    }

    private static boolean asPredicted(PublishRequest early, Landed done) {
        for (TableEntry update : early.tableUpdates()) {
            CommittedVersion landed = done.committed().get(update.tableKey());
            if (landed == null || landed.version() != update.version() || landed.rowCount() != update.rowCount()) {
                return false;
            }
        }
        return early.tableUpdates().size() == done.committed().size();
    }
}
