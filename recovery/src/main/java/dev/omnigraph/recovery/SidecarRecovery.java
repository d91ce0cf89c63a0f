package dev.omnigraph.recovery;

import dev.omnigraph.recovery.RecoveryRecord.TableOutcome;
import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.storage.CommittedVersion;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.ManifestBatchPublisher;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.ManifestStore;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * Decides and carries out the fate of one exact mutation/load sidecar from live state: finalize when its commit
 * (or its rollback commit) is already visible; roll forward when every effect is exactly the planned one at HEAD,
 * the effects were confirmed and the captured authority still holds; otherwise roll back its own effects (Lance
 * Restore to the pins, then one publish so manifest == HEAD); and fail closed on anything foreign or ambiguous.
 * Every finished recovery appends one audit row, then deletes the sidecar. The caller holds the gates.
 */
public final class SidecarRecovery {
    public static final String RECOVERY_ACTOR = "omnigraph:recovery";
    /** The operation of the commit that publishes an interrupted optimize forward (it changes no row). */
    public static final String OPTIMIZE_RECOVERED_OPERATION = "optimize (recovered)";

    /** Which actions a caller allows. */
    public enum Mode {
        /** Read-write open: roll forward when possible, else roll back. */
        FULL,
        /** Write-entry healer: roll forward or finalize only; anything else is left for a read-write open. */
        ROLL_FORWARD_ONLY,
        /** A writer undoing its own failed attempt: finalize if published, else roll back. */
        COMPENSATE
    }

    /** What happened to the sidecar. */
    public sealed interface Outcome {
        record RolledForward(String commitId) implements Outcome {
        }

        record RolledBack(Optional<String> commitId) implements Outcome {
        }

        record OrphanDiscarded() implements Outcome {
        }

        /** Left in place (healer only); {@code reason} says what it needs. */
        record Deferred(String reason) implements Outcome {
        }

        /** The sidecar had already been resolved by someone else. */
        record AlreadyGone() implements Outcome {
        }
    }

    private final ManifestStore manifest;
    private final ManifestBatchPublisher publisher;
    private final SidecarStore sidecars;
    private final RecoveryAudit audit;
    private final Failpoints failpoints;
    private final Classifier classifier;
    private final RecoverySteps steps;
    private final MaintenanceRecovery maintenance;
    private final TablePaths paths;

    public SidecarRecovery(TableStorage tables, ManifestStore manifest, ManifestBatchPublisher publisher,
                           SidecarStore sidecars, RecoveryAudit audit, Failpoints failpoints) {
        this.manifest = manifest;
        this.publisher = publisher;
        this.sidecars = sidecars;
        this.audit = audit;
        this.failpoints = failpoints;
        this.paths = sidecars.paths();
        this.classifier = new Classifier(tables, paths);
        this.steps = new RecoverySteps(tables, paths);
        this.maintenance = new MaintenanceRecovery(tables, manifest, publisher, paths);
    }

    public Mono<Outcome> recover(String operationId, Mode mode) {
        return sidecars.read(operationId).flatMap(found -> found.isEmpty()
                ? Mono.just(new Outcome.AlreadyGone())
                : recover(found.get(), mode));
    }

    private Mono<Outcome> recover(Sidecar sidecar, Mode mode) {
        if (sidecar.writerKind() == Sidecar.WriterKind.SchemaApply) {
            // Its delta (registrations, renames, tombstones) and contract promotion live with the schema applier.
            return refuse(sidecar, mode, "a schema apply is recovered by its own recovery at read-write open");
        }
        Optional<String> outside = paths.refusal(sidecar);
        if (outside.isPresent()) {
            return refuse(sidecar, mode, outside.get());
        }
        if (MaintenanceRecovery.handles(sidecar)) {
            return maintenance.plan(sidecar).flatMap(plan -> plan.refusal().isPresent()
                    ? refuse(sidecar, mode, plan.refusal().get())
                    : maintenance.publish(plan).flatMap(commit -> finish(sidecar, RecoveryRecord.Kind.RolledForward,
                            commit, plan.outcomes()).thenReturn(new Outcome.RolledForward(commit.orElse("")))));
        }
        if (sidecar.protocolV3() == null) {
            return refuse(sidecar, mode, unrecoverableKind(sidecar));
        }
        String branch = GraphBranches.graphBranch(Optional.ofNullable(sidecar.branch()));
        Sidecar.ProtocolV3 payload = sidecar.protocolV3();
        return manifest.branchIdentity(branch)
                .map(Optional::of)
                .onErrorResume(NotFound.class, gone -> Mono.just(Optional.empty()))
                .flatMap(identity -> identity.isEmpty()
                        ? discardOrphan(sidecar)
                        : Mono.zip(manifest.commitOn(branch, payload.lineage().graphCommitId()),
                                        manifest.commitOn(branch, payload.rollbackGraphCommitId()))
                                .flatMap(visible -> proven(sidecar, mode, branch, identity.get(),
                                        VisibleOutcome.of(sidecar, visible.getT1(), visible.getT2()))));
    }

    /** Finalizes on the outcome the visible commits prove, refuses an impossible one, else decides from the tables. */
    private Mono<Outcome> proven(Sidecar sidecar, Mode mode, String branch, BranchIdentity identity,
                                 VisibleOutcome.Proof proof) {
        if (proof instanceof VisibleOutcome.Proof.Forward forward) {
            return finish(sidecar, RecoveryRecord.Kind.RolledForward, Optional.of(forward.commit().id()),
                    RecoverySteps.forwardOutcomes(forward.commit())).thenReturn(new Outcome.RolledForward(forward.commit().id()));
        }
        if (proof instanceof VisibleOutcome.Proof.Back back) {
            return finalizeBack(sidecar, Optional.of(back.commit().id()), List.of());
        }
        if (proof instanceof VisibleOutcome.Proof.Violation violation) {
            return refuse(sidecar, mode, violation.reason());
        }
        return decide(sidecar, mode, branch, identity);
    }

    static String unrecoverableKind(Sidecar sidecar) {
        return "its writer kind " + sidecar.writerKind() + " has no exact payload this build can recover";
    }

    private Mono<Outcome> decide(Sidecar sidecar, Mode mode, String branch, BranchIdentity identity) {
        return manifest.load(branch).flatMap(state -> classifier.classifyAll(sidecar, state).flatMap(byPin -> {
            Optional<String> refusal = Classifier.refusal(byPin);
            if (refusal.isPresent()) {
                return refuse(sidecar, mode, refusal.get());
            }
            if (mode != Mode.COMPENSATE && Classifier.canRollForward(sidecar, byPin, state, identity)) {
                return rollForward(sidecar, branch, identity, state);
            }
            if (mode == Mode.ROLL_FORWARD_ONLY) {
                return Mono.just(new Outcome.Deferred("operation " + sidecar.operationId()
                        + " must be rolled back; reopen the graph read-write to run recovery"));
            }
            return rollBack(sidecar, branch, state, byPin);
        }));
    }

    // ---- roll forward ----------------------------------------------------------------------------------------

    private Mono<Outcome> rollForward(Sidecar sidecar, String branch, BranchIdentity identity, ManifestState state) {
        return publisher.publish(RecoverySteps.forwardRequest(sidecar, branch, identity, state))
                .then(failpoints.hit("recovery.after_forward_publish"))
                .then(finalizeForward(sidecar, sidecar.protocolV3().lineage().graphCommitId()));
    }

    private Mono<Outcome> finalizeForward(Sidecar sidecar, String commitId) {
        return finish(sidecar, RecoveryRecord.Kind.RolledForward, Optional.of(commitId), RecoverySteps.forwardOutcomes(sidecar))
                .thenReturn(new Outcome.RolledForward(commitId));
    }

    // ---- roll back -------------------------------------------------------------------------------------------

    private Mono<Outcome> rollBack(Sidecar sidecar, String branch, ManifestState state, Map<TablePin, Classifier.Classified> byPin) {
        try {
            // A writer whose tenure was taken over must not restore or delete anything: its restores would be
            // table commits no fence stops (the new holder rolls the intent back under its own epoch).
            publisher.requireFenced(state);
        } catch (RuntimeException lost) {
            return Mono.error(lost);
        }
        Classifier.Restores restores = Classifier.restores(byPin, state);
        if (!restores.forks().isEmpty()) {
            // Forks this intent created were never published: they go whole, before any restore.
            Map<TablePin, Classifier.Classified> rest = new LinkedHashMap<>(byPin);
            restores.forks().forEach(rest::remove);
            return steps.reclaimForks(restores.forks()).then(rest.isEmpty()
                    ? finalizeBack(sidecar, Optional.empty(), RecoverySteps.untouched(sidecar))
                    : rollBack(sidecar, branch, state, rest));
        }
        List<TablePin> toRestore = restores.toRestore();
        List<TablePin> restored = restores.restored();
        if (restores.none()) {
            return finalizeBack(sidecar, Optional.empty(), RecoverySteps.untouched(sidecar));
        }
        String rollbackId = sidecar.protocolV3().rollbackGraphCommitId();
        return steps.stageRestores(toRestore)
                .flatMap(staged -> failpoints.hit("recovery.before_plan_write")
                        .then(sidecars.write(RecoverySteps.planned(sidecar, staged, Optional.empty())))
                        .then(failpoints.hit("recovery.after_plan_write"))
                        .then(steps.commitRestores(staged, 1, n -> failpoints.hit("recovery.after_restore:" + n)))
                        .flatMap(landed -> steps.alreadyRestored(restored).map(already -> {
                            Map<String, CommittedVersion> all = new LinkedHashMap<>(RecoverySteps.byTable(staged, landed));
                            all.putAll(already);
                            return all;
                        }))
                        .flatMap(restoredVersions -> publisher.publish(RecoverySteps.rollbackRequest(branch, state,
                                        state.head(), rollbackId, restoredVersions))
                                .then(failpoints.hit("recovery.after_rollback_publish"))
                                .then(finalizeBack(sidecar, Optional.of(rollbackId),
                                        RecoverySteps.rollbackOutcomes(sidecar, restoredVersions))))
                        .onErrorResume(error -> steps.discard(staged).then(Mono.error(error))));
    }

    private Mono<Outcome> finalizeBack(Sidecar sidecar, Optional<String> commitId, List<TableOutcome> outcomes) {
        return finish(sidecar, RecoveryRecord.Kind.RolledBack, commitId, outcomes)
                .thenReturn(new Outcome.RolledBack(commitId));
    }

    private Mono<Outcome> discardOrphan(Sidecar sidecar) {
        return finish(sidecar, RecoveryRecord.Kind.OrphanedBranchDiscarded, Optional.empty(), List.of())
                .thenReturn(new Outcome.OrphanDiscarded());
    }

    /**
     * Audit (idempotent), then delete the sidecar: the last two steps of every outcome. A failed audit append
     * fails the recovery and keeps the sidecar, so the next heal or open retries: by then the outcome's commit is
     * visible, so the retry only finalizes (audit once, delete) and never repeats an effect.
     */
    private Mono<Void> finish(Sidecar sidecar, RecoveryRecord.Kind kind, Optional<String> commitId, List<TableOutcome> outcomes) {
        return failpoints.hit(FailpointCatalog.AUDIT_RECORD)
                .then(audit.record(RecoverySteps.record(sidecar, kind, commitId, outcomes)))
                .then(failpoints.hit("recovery.after_audit"))
                .then(sidecars.delete(sidecar.operationId()))
                .then();
    }

    private Mono<Outcome> refuse(Sidecar sidecar, Mode mode, String reason) {
        String message = refusalMessage(sidecar, reason);
        if (mode == Mode.ROLL_FORWARD_ONLY) {
            return Mono.just(new Outcome.Deferred(message));
        }
        return Mono.error(new RecoveryRequired(sidecar.operationId(), message, null));
    }

    public static String refusalMessage(Sidecar sidecar, String reason) {
        return "recovery of operation " + sidecar.operationId() + " refused: " + reason
                + "; the sidecar is kept for an operator";
    }
}
