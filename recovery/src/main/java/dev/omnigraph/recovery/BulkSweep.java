package dev.omnigraph.recovery;

import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.recovery.SweepPlan.BranchPlan;
import dev.omnigraph.recovery.SweepPlan.Verdict;
import dev.omnigraph.storage.CommittedVersion;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.manifest.ManifestBatchPublisher;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.ManifestStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The read-write open's recovery sweep, in bulk: classify every pending sidecar first ({@link SweepPlan}), refuse
 * loudly (touching nothing) if any must be refused, then act once per kind of step instead of once per sidecar:
 * <ol>
 *   <li>per branch, publish the one roll-forward (if any);</li>
 *   <li>stage one Lance restore per table to roll back, and rewrite each of those sidecars with its restore
 *       identities and the branch's shared rollback commit id (the oldest participant's pre-minted id);</li>
 *   <li>commit the restores, exactly;</li>
 *   <li>per branch, one publish of every restored table under that shared rollback id;</li>
 *   <li>one audit append with a row per sidecar;</li>
 *   <li>delete the sidecars.</li>
 * </ol>
 * Crash safety rests on the same facts as the one-sidecar path: restore identities are durable before any restore
 * commits (so a re-run sees {@code OWN_COMPENSATED}), each participant names the shared rollback id before it can
 * be published (so once visible, every participant finalizes as rolled back), and audit appends are idempotent per
 * operation. A sweep killed at any step leaves a graph the next sweep takes to the same end state. The caller holds
 * the schema gate exclusively.
 */
public final class BulkSweep {
    /** Storage calls the sweep keeps in flight at once (restores, sidecar writes, deletes on distinct files). */
    static final int PARALLELISM = 4;

    private final ManifestBatchPublisher publisher;
    private final SidecarStore sidecars;
    private final RecoveryAudit audit;
    private final Failpoints failpoints;
    private final SweepPlan planner;
    private final RecoverySteps steps;
    private final SidecarRecovery recovery;
    /** Told of each sidecar the sweep resolved (operation id, outcome), once its audit row is written. */
    private BiConsumer<String, SidecarRecovery.Outcome> resolved = (operationId, outcome) -> { };

    public BulkSweep(TableStorage tables, ManifestStore manifest, ManifestBatchPublisher publisher,
                     SidecarStore sidecars, RecoveryAudit audit, Failpoints failpoints) {
        this.publisher = publisher;
        this.sidecars = sidecars;
        this.audit = audit;
        this.failpoints = failpoints;
        this.planner = new SweepPlan(tables, manifest, sidecars.paths());
        this.steps = new RecoverySteps(tables, sidecars.paths());
        this.recovery = new SidecarRecovery(tables, manifest, publisher, sidecars, audit, failpoints);
    }

    /** Reports each resolved sidecar to {@code listener} (for counters and log lines); returns this sweep. */
    public BulkSweep onResolved(BiConsumer<String, SidecarRecovery.Outcome> listener) {
        this.resolved = java.util.Objects.requireNonNull(listener, "listener");
        return this;
    }

    /** Every sidecar on disk rolled forward, rolled back or finalized; how many were resolved. */
    public Mono<Integer> run() {
        return sidecars.reload().collectList().flatMap(pending -> pending.isEmpty() ? Mono.just(0)
                // Optimize intents only ever publish forward (MaintenanceRecovery); the exact ones go in bulk.
                : Flux.fromIterable(pending).filter(MaintenanceRecovery::handles)
                        .concatMap(sidecar -> recovery.recover(sidecar.operationId(), SidecarRecovery.Mode.FULL)
                                .doOnNext(outcome -> resolved.accept(sidecar.operationId(), outcome))).then()
                        .then(Mono.defer(() -> {
                            List<Sidecar> exact = pending.stream().filter(s -> !MaintenanceRecovery.handles(s)).toList();
                            return exact.isEmpty() ? Mono.empty() : planner.plan(exact, PARALLELISM).flatMap(this::execute);
                        }))
                        .thenReturn(pending.size()));
    }

    private Mono<Void> execute(List<BranchPlan> plans) {
        List<Verdict.Refuse> refused = plans.stream().flatMap(plan -> plan.verdicts().stream())
                .filter(Verdict.Refuse.class::isInstance).map(Verdict.Refuse.class::cast).toList();
        if (!refused.isEmpty()) {
            return Mono.error(refusal(refused));
        }
        Map<String, Optional<String>> heads = new HashMap<>();
        plans.forEach(plan -> plan.state().ifPresent(state -> heads.put(plan.branch(), state.head())));
        List<Verdict.Back> backs = plans.stream().flatMap(plan -> plan.backs().stream()).toList();
        return failpoints.hit(FailpointCatalog.SWEEP_AFTER_CLASSIFY)
                .then(Flux.fromIterable(plans).concatMap(plan -> rollForward(plan, heads)).then())
                // First-touch forks the rolled-back writes created were never published: deleted whole first.
                .then(Flux.fromIterable(backs).concatMap(back -> steps.reclaimForks(back.forks())).then())
                .then(stageAll(backs))
                .flatMap(staged -> planAndRestore(plans, backs, staged)
                        .onErrorResume(error -> steps.discard(staged.values().stream().flatMap(List::stream).toList())
                                .then(Mono.error(error))))
                .flatMap(restored -> Flux.fromIterable(plans)
                        .concatMap(plan -> publishRollback(plan, heads, restored))
                        .then(failpoints.hit(FailpointCatalog.SWEEP_AFTER_PUBLISH))
                        .then(Mono.defer(() -> auditAll(plans, restored))))
                .then(failpoints.hit(FailpointCatalog.SWEEP_AFTER_AUDIT))
                .then(deleteAll(plans));
    }

    private static RecoveryRequired refusal(List<Verdict.Refuse> refused) {
        Verdict.Refuse first = refused.get(0);
        String others = refused.size() == 1 ? "" : " (and " + (refused.size() - 1) + " more refused: "
                + String.join(", ", refused.stream().skip(1).map(r -> r.sidecar().operationId()).toList())
                + "); nothing was recovered";
        return new RecoveryRequired(first.sidecar().operationId(),
                SidecarRecovery.refusalMessage(first.sidecar(), first.reason()) + others, null);
    }

    private Mono<Void> rollForward(BranchPlan plan, Map<String, Optional<String>> heads) {
        return Mono.justOrEmpty(plan.forward()).flatMap(forward -> publisher.publish(RecoverySteps.forwardRequest(
                        forward.sidecar(), forward.branch(), forward.identity(), plan.state().orElseThrow()))
                .doOnNext(commit -> heads.put(plan.branch(), Optional.of(commit.id())))
                .then(failpoints.hit(FailpointCatalog.SWEEP_AFTER_FORWARD_PUBLISH)));
    }

    /** One staged restore per table to roll back, keyed by sidecar; on failure every staged restore is discarded. */
    private Mono<Map<Verdict.Back, List<Map.Entry<TablePin, StagedHandle>>>> stageAll(List<Verdict.Back> backs) {
        List<TablePin> all = backs.stream().flatMap(back -> back.toRestore().stream()).toList();
        return steps.stageRestores(all).map(staged -> {
            Map<Verdict.Back, List<Map.Entry<TablePin, StagedHandle>>> bySidecar = new LinkedHashMap<>();
            int next = 0;
            for (Verdict.Back back : backs) {
                bySidecar.put(back, staged.subList(next, next + back.toRestore().size()));
                next += back.toRestore().size();
            }
            return bySidecar;
        });
    }

    /** Writes every participant's plan, commits every restore, counts earlier restores: the restored versions. */
    private Mono<Map<String, Map<String, CommittedVersion>>> planAndRestore(
            List<BranchPlan> plans, List<Verdict.Back> backs, Map<Verdict.Back, List<Map.Entry<TablePin, StagedHandle>>> staged) {
        Map<String, String> rollbackIds = new HashMap<>();
        plans.forEach(plan -> plan.backs().stream().findFirst().ifPresent(oldest ->
                rollbackIds.put(plan.branch(), oldest.sidecar().protocolV3().rollbackGraphCommitId())));
        List<Map.Entry<TablePin, StagedHandle>> allStaged = staged.values().stream().flatMap(List::stream).toList();
        return Flux.fromIterable(backs)
                .flatMap(back -> sidecars.write(RecoverySteps.planned(back.sidecar(), staged.get(back),
                        Optional.of(rollbackIds.get(back.branch())))), PARALLELISM)
                .then(failpoints.hit(FailpointCatalog.SWEEP_AFTER_PLANS))
                .then(steps.commitRestores(allStaged, PARALLELISM, n -> failpoints.hit(FailpointCatalog.SWEEP_AFTER_RESTORE + n)))
                .flatMap(landed -> {
                    Map<StagedHandle, CommittedVersion> byHandle = new HashMap<>();
                    for (int i = 0; i < allStaged.size(); i++) {
                        byHandle.put(allStaged.get(i).getValue(), landed.get(i));
                    }
                    return Flux.fromIterable(backs)
                            .concatMap(back -> steps.alreadyRestored(back.restored()).map(already -> {
                                Map<String, CommittedVersion> versions = new LinkedHashMap<>();
                                staged.get(back).forEach(entry -> versions.put(entry.getKey().tableKey(),
                                        byHandle.get(entry.getValue())));
                                versions.putAll(already);
                                return Map.entry(back, versions);
                            }))
                            .collect(LinkedHashMap<String, Map<String, CommittedVersion>>::new, (byBranch, entry) ->
                                    byBranch.computeIfAbsent(entry.getKey().branch(), branch -> new LinkedHashMap<>())
                                            .putAll(entry.getValue()));
                })
                .flatMap(byBranch -> failpoints.hit(FailpointCatalog.SWEEP_AFTER_RESTORES).thenReturn(byBranch));
    }

    private Mono<Void> publishRollback(BranchPlan plan, Map<String, Optional<String>> heads,
                                       Map<String, Map<String, CommittedVersion>> restored) {
        Map<String, CommittedVersion> versions = restored.get(plan.branch());
        if (versions == null || versions.isEmpty()) {
            return Mono.empty();
        }
        ManifestState state = plan.state().orElseThrow();
        String commitId = rollbackId(plan);
        return publisher.publish(RecoverySteps.rollbackRequest(plan.branch(), state, heads.get(plan.branch()),
                commitId, versions)).then();
    }

    private static String rollbackId(BranchPlan plan) {
        return plan.backs().get(0).sidecar().protocolV3().rollbackGraphCommitId();
    }

    private Mono<Void> auditAll(List<BranchPlan> plans, Map<String, Map<String, CommittedVersion>> restored) {
        List<RecoveryRecord> records = new ArrayList<>();
        for (BranchPlan plan : plans) {
            for (Verdict verdict : plan.verdicts()) {
                Sidecar sidecar = verdict.sidecar();
                if (verdict instanceof Verdict.Finalize done) {
                    records.add(RecoverySteps.record(sidecar, done.kind(), done.commitId(), done.outcomes()));
                } else if (verdict instanceof Verdict.Forward) {
                    records.add(RecoverySteps.record(sidecar, RecoveryRecord.Kind.RolledForward,
                            Optional.of(sidecar.protocolV3().lineage().graphCommitId()), RecoverySteps.forwardOutcomes(sidecar)));
                } else if (verdict instanceof Verdict.Back) {
                    boolean published = !restored.getOrDefault(plan.branch(), Map.of()).isEmpty();
                    records.add(RecoverySteps.record(sidecar, RecoveryRecord.Kind.RolledBack,
                            published ? Optional.of(rollbackId(plan)) : Optional.empty(),
                            RecoverySteps.rollbackOutcomes(sidecar, restored.getOrDefault(plan.branch(), Map.of()))));
                }
            }
        }
        return failpoints.hit(FailpointCatalog.AUDIT_RECORD).then(audit.recordAll(records))
                .doOnSuccess(done -> records.forEach(row -> resolved.accept(row.operationId(), outcomeOf(row))));
    }

    private static SidecarRecovery.Outcome outcomeOf(RecoveryRecord row) {
        return switch (row.kind()) {
            case RolledForward -> new SidecarRecovery.Outcome.RolledForward(row.graphCommitId().orElse(""));
            case RolledBack -> new SidecarRecovery.Outcome.RolledBack(row.graphCommitId());
            case OrphanedBranchDiscarded -> new SidecarRecovery.Outcome.OrphanDiscarded();
        };
    }

    private Mono<Void> deleteAll(List<BranchPlan> plans) {
        List<Sidecar> all = plans.stream().flatMap(plan -> plan.verdicts().stream()).map(Verdict::sidecar).toList();
        return Flux.range(0, all.size())
                .concatMap(index -> sidecars.delete(all.get(index).operationId())
                        .then(failpoints.hit(FailpointCatalog.SWEEP_AFTER_DELETE + (index + 1))))
                .then();
    }
}
