package dev.omnigraph.recovery;

import dev.omnigraph.recovery.RecoveryRecord.TableOutcome;
import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.ManifestStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The classification half of the bulk sweep: what must happen to every pending sidecar, decided before anything
 * is touched. Per graph branch it reads the branch identity, the manifest state and the visible commit ids once,
 * then classifies each sidecar's tables (one HEAD read per table, one transaction read per moved table) with the
 * same rules as the one-sidecar recovery ({@link Classifier}).
 *
 * <p>Ordering on one branch: every publish moves the branch head, and a roll-forward publishes under the exact
 * head its write captured. So at most one sidecar per branch rolls forward (the oldest that qualifies); any other
 * that qualified would find the head moved by it and is rolled back, as the protocol requires of a write whose
 * captured authority changed. Its rollback then publishes on top of that roll-forward.
 */
final class SweepPlan {
    /** What the sweep does with one sidecar. */
    sealed interface Verdict {
        Sidecar sidecar();

        /** Nothing to change: audit and delete (orphan, already-visible outcome, rollback with nothing moved). */
        record Finalize(Sidecar sidecar, RecoveryRecord.Kind kind, Optional<String> commitId,
                        List<TableOutcome> outcomes) implements Verdict {
        }

        /** Publish the write's own confirmed commit. */
        record Forward(Sidecar sidecar, String branch, BranchIdentity identity) implements Verdict {
        }

        /**
         * Delete {@code forks} (first-touch forks it created), restore {@code toRestore}, count {@code restored}
         * (already restored by an interrupted recovery).
         */
        record Back(Sidecar sidecar, String branch, List<TablePin> toRestore, List<TablePin> restored,
                    List<TablePin> forks) implements Verdict {
        }

        /** Fails the open; nothing is touched. */
        record Refuse(Sidecar sidecar, String reason) implements Verdict {
        }
    }

    /** The verdicts of one graph branch and the manifest state they were decided against. */
    record BranchPlan(String branch, Optional<ManifestState> state, List<Verdict> verdicts) {
        List<Verdict.Back> backs() {
            return verdicts.stream().filter(Verdict.Back.class::isInstance).map(Verdict.Back.class::cast).toList();
        }

        Optional<Verdict.Forward> forward() {
            return verdicts.stream().filter(Verdict.Forward.class::isInstance).map(Verdict.Forward.class::cast).findFirst();
        }
    }

    private final ManifestStore manifest;
    private final TablePaths paths;
    private final Classifier classifier;

    SweepPlan(TableStorage tables, ManifestStore manifest, TablePaths paths) {
        this.manifest = manifest;
        this.paths = paths;
        this.classifier = new Classifier(tables, paths);
    }

    /** Plans every sidecar of {@code pending}, grouped by graph branch (in first-seen order). */
    Mono<List<BranchPlan>> plan(List<Sidecar> pending, int parallelism) {
        Map<String, List<Sidecar>> byBranch = pending.stream().collect(Collectors.groupingBy(
                sidecar -> GraphBranches.graphBranch(Optional.ofNullable(sidecar.branch())), LinkedHashMap::new,
                Collectors.toList()));
        return Flux.fromIterable(byBranch.entrySet())
                .concatMap(group -> planBranch(group.getKey(), group.getValue(), parallelism))
                .collectList();
    }

    private Mono<BranchPlan> planBranch(String branch, List<Sidecar> sidecars, int parallelism) {
        return manifest.branchIdentity(branch)
                .map(Optional::of)
                .onErrorResume(NotFound.class, gone -> Mono.just(Optional.empty()))
                .flatMap(identity -> identity.isEmpty()
                        ? Mono.just(new BranchPlan(branch, Optional.empty(), sidecars.stream().map(SweepPlan::orphan).toList()))
                        : Mono.zip(manifest.load(branch), manifest.commits(branch)
                                        .collectMap(GraphCommit::id, commit -> commit))
                                .flatMap(loaded -> Flux.fromIterable(sidecars)
                                        .flatMapSequential(sidecar -> decide(sidecar, branch, identity.get(),
                                                loaded.getT1(), loaded.getT2()), parallelism)
                                        .collectList()
                                        .map(verdicts -> new BranchPlan(branch, Optional.of(loaded.getT1()),
                                                ordered(branch, loaded.getT1(), verdicts)))));
    }

    private static Verdict orphan(Sidecar sidecar) {
        return sidecar.protocolV3() == null ? new Verdict.Refuse(sidecar, SidecarRecovery.unrecoverableKind(sidecar))
                : new Verdict.Finalize(sidecar, RecoveryRecord.Kind.OrphanedBranchDiscarded, Optional.empty(), List.of());
    }

    private Mono<Verdict> decide(Sidecar sidecar, String branch, BranchIdentity identity, ManifestState state,
                                 Map<String, GraphCommit> visible) {
        Sidecar.ProtocolV3 payload = sidecar.protocolV3();
        if (payload == null) {
            return Mono.just(new Verdict.Refuse(sidecar, SidecarRecovery.unrecoverableKind(sidecar)));
        }
        Optional<String> outside = paths.refusal(sidecar);
        if (outside.isPresent()) {
            return Mono.just(new Verdict.Refuse(sidecar, outside.get()));
        }
        VisibleOutcome.Proof proof = VisibleOutcome.of(sidecar,
                Optional.ofNullable(visible.get(payload.lineage().graphCommitId())),
                Optional.ofNullable(visible.get(payload.rollbackGraphCommitId())));
        if (proof instanceof VisibleOutcome.Proof.Forward forward) {
            return Mono.just(new Verdict.Finalize(sidecar, RecoveryRecord.Kind.RolledForward,
                    Optional.of(forward.commit().id()), RecoverySteps.forwardOutcomes(forward.commit())));
        }
        if (proof instanceof VisibleOutcome.Proof.Back back) {
            return Mono.just(new Verdict.Finalize(sidecar, RecoveryRecord.Kind.RolledBack,
                    Optional.of(back.commit().id()), List.of()));
        }
        if (proof instanceof VisibleOutcome.Proof.Violation violation) {
            return Mono.just(new Verdict.Refuse(sidecar, violation.reason()));
        }
        return classifier.classifyAll(sidecar, state).map(byPin -> {
            Optional<String> refusal = Classifier.refusal(byPin);
            if (refusal.isPresent()) {
                return new Verdict.Refuse(sidecar, refusal.get());
            }
            if (Classifier.canRollForward(sidecar, byPin, state, identity)) {
                return new Verdict.Forward(sidecar, branch, identity);
            }
            return back(sidecar, branch, byPin, state);
        });
    }

    private static Verdict back(Sidecar sidecar, String branch, Map<TablePin, Classifier.Classified> byPin,
                                ManifestState state) {
        Classifier.Restores restores = Classifier.restores(byPin, state);
        if (restores.none()) {
            return new Verdict.Finalize(sidecar, RecoveryRecord.Kind.RolledBack, Optional.empty(),
                    RecoverySteps.untouched(sidecar));
        }
        return new Verdict.Back(sidecar, branch, restores.toRestore(), restores.restored(), restores.forks());
    }

    /**
     * Applies the one-branch ordering rules: the oldest qualifying roll-forward stays, later ones become rollbacks;
     * a table two rollbacks would both restore is ambiguous, and both are refused (fail closed).
     */
    private static List<Verdict> ordered(String branch, ManifestState state, List<Verdict> verdicts) {
        List<Verdict> out = new ArrayList<>();
        boolean forwarded = false;
        for (Verdict verdict : verdicts) {
            if (verdict instanceof Verdict.Forward forward) {
                if (!forwarded) {
                    forwarded = true;
                    out.add(forward);
                } else {
                    List<TablePin> pins = forward.sidecar().tables();
                    List<TablePin> forks = pins.stream().filter(pin -> ForkPins.isFork(pin, state)).toList();
                    List<TablePin> published = pins.stream().filter(pin -> !forks.contains(pin)).toList();
                    out.add(new Verdict.Back(forward.sidecar(), branch, published, List.of(), forks));
                }
            } else {
                out.add(verdict);
            }
        }
        Map<String, Integer> claims = new LinkedHashMap<>();
        for (Verdict verdict : out) {
            if (verdict instanceof Verdict.Back back) {
                back.toRestore().forEach(pin -> claims.merge(pin.tableKey(), 1, Integer::sum));
                back.restored().forEach(pin -> claims.merge(pin.tableKey(), 1, Integer::sum));
            }
        }
        return out.stream().map(verdict -> verdict instanceof Verdict.Back back && touches(back, claims)
                ? new Verdict.Refuse(back.sidecar(), "another pending operation on branch " + branch
                        + " also moved one of its tables") : verdict).toList();
    }

    private static boolean touches(Verdict.Back back, Map<String, Integer> claims) {
        return back.toRestore().stream().anyMatch(pin -> claims.get(pin.tableKey()) > 1)
                || back.restored().stream().anyMatch(pin -> claims.get(pin.tableKey()) > 1);
    }
}
