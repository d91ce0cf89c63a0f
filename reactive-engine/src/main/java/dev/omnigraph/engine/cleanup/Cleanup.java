package dev.omnigraph.engine.cleanup;

import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.VersionGcPlan;
import dev.omnigraph.storage.VersionRetention;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.TableEntry;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code cleanup}: version GC of every table dataset. The retention rule, in graph terms: on every live branch the
 * newest {@code keep} commits and every commit younger than {@code olderThan} stay readable (time travel to them
 * works), and so does each branch's current state. A table version is kept when such a state pins it, when it is at
 * or above the published pin of the branch owning its ref (unpublished drift stays for {@code repair}), when it is
 * its ref's latest, or when a Lance branch (a graph branch's table fork) was forked from it; the storage adapter
 * then deletes the other version manifests and the files only they reference. {@code __manifest} and the recovery
 * audit log are never collected (time travel to any commit still opens the manifest; tables then answer NotFound
 * for versions outside retention).
 *
 * <p>Runs under the exclusive schema gate (no in-process writer can stage or commit meanwhile; other processes are
 * held off by the root lock) and refuses at entry while any recovery sidecar is pending, since recovery may need
 * versions a GC would remove. Per dataset the files go first, then the manifests: a kill at any point leaves every
 * kept version whole, and running cleanup again finishes the job.
 */
public final class Cleanup {
    private final WriteContext ctx;

    public Cleanup(WriteContext ctx) {
        this.ctx = ctx;
    }

    public Mono<CleanupReport> run(CleanupOptions options) {
        return Mono.usingWhen(ctx.gates().exclusiveSchema(),
                permit -> refuseWhileRecoveryPending().then(Mono.defer(() -> collect(options))),
                Permit::releaseAsync, (permit, error) -> permit.releaseAsync(), Permit::releaseAsync);
    }

    private Mono<Void> refuseWhileRecoveryPending() {
        return ctx.sidecars().list().next().flatMap(sidecar -> Mono.error(new RecoveryRequired(sidecar.operationId(),
                "cleanup refuses while a recovery sidecar is pending: recovery may need the versions it would delete",
                null)));
    }

    private Mono<CleanupReport> collect(CleanupOptions options) {
        Instant now = options.clock().instant();
        Instant orphanCutoff = now.minus(options.orphanGrace());
        return ctx.manifest().branches().flatMap(branches -> Flux.fromIterable(branches)
                .concatMap(branch -> keptStates(branch, options, now))
                .collectList()
                .map(Cleanup::retentionByLocation)
                .flatMap(byLocation -> OrphanForks.reclaim(ctx,
                                branches.stream().map(BranchIdentity::name).collect(java.util.stream.Collectors.toSet()),
                                byLocation, orphanCutoff, options.confirm())
                        .flatMap(forks -> collectVersions(byLocation, orphanCutoff, options.confirm())
                                .map(tables -> new CleanupReport(options.confirm(), tables, forks)))));
    }

    /** Plans (and, confirmed, applies) the version GC of each dataset in location order. */
    private Mono<List<CleanupReport.TableCleanup>> collectVersions(
            Map<String, Map<Optional<String>, VersionRetention>> byLocation, Instant orphanCutoff, boolean confirm) {
        return Flux.fromIterable(byLocation.entrySet())
                .concatMap(entry -> ctx.tables().planVersionGc(ctx.root() + "/" + entry.getKey(), entry.getValue(),
                        orphanCutoff).map(plan -> Map.entry(entry.getKey(), plan)))
                .index()
                .concatMap(indexed -> confirm
                        ? apply(indexed.getT1() + 1, indexed.getT2().getValue()).thenReturn(indexed.getT2())
                        : Mono.just(indexed.getT2()))
                .filter(entry -> !entry.getValue().isEmpty())
                .map(entry -> new CleanupReport.TableCleanup(entry.getKey(), entry.getValue().manifests().size(),
                        entry.getValue().files().size(), entry.getValue().bytes()))
                .collectList();
    }

    private Mono<Void> apply(long ordinal, VersionGcPlan plan) {
        return ctx.tables().applyVersionGc(plan, VersionGcPlan.Phase.FILES)
                .then(ctx.failpoints().hit(FailpointCatalog.CLEANUP_AFTER_FILES + ordinal))
                .then(ctx.tables().applyVersionGc(plan, VersionGcPlan.Phase.MANIFESTS))
                .then(ctx.failpoints().hit(FailpointCatalog.CLEANUP_AFTER_MANIFESTS + ordinal));
    }

    /** A state cleanup must keep readable, and whether it is its branch's current one. */
    private record Kept(BranchIdentity branch, ManifestState state, boolean current) {
    }

    /** The branch's current state, then the state of every commit the options keep, newest first. */
    private Flux<Kept> keptStates(BranchIdentity branch, CleanupOptions options, Instant now) {
        long youngestDropped = options.olderThan().map(age -> micros(now.minus(age))).orElse(Long.MAX_VALUE);
        int newest = options.keep().orElse(0);
        Mono<Kept> current = ctx.manifest().load(branch.name()).map(state -> new Kept(branch, state, true));
        Flux<Kept> commits = ctx.manifest().commits(branch.name())
                .index()
                .filter(indexed -> indexed.getT1() < newest || indexed.getT2().createdAtMicros() >= youngestDropped)
                .concatMap(indexed -> stateOf(indexed.getT2()).map(state -> new Kept(branch, state, false)));
        return current.concatWith(commits);
    }

    /** The graph as of {@code commit}; empty when its manifest version is gone with a deleted branch. */
    private Mono<ManifestState> stateOf(GraphCommit commit) {
        return ctx.manifest().loadAt(commit.branchName(), commit.manifestVersion())
                .onErrorResume(NotFound.class, gone -> Mono.empty());
    }

    /** Per dataset location, per Lance ref: the versions the kept states pin, and each owner's drift floor. */
    private static Map<String, Map<Optional<String>, VersionRetention>> retentionByLocation(List<Kept> kept) {
        Map<String, Map<Optional<String>, Set<Long>>> pinned = new TreeMap<>();
        Map<String, Map<Optional<String>, Long>> floors = new HashMap<>();
        for (Kept state : kept) {
            Optional<String> ownRef = GraphBranches.lanceRef(state.branch().name());
            for (TableEntry entry : state.state().tables().values()) {
                pinned.computeIfAbsent(entry.location(), unused -> new HashMap<>())
                        .computeIfAbsent(entry.lanceBranch(), unused -> new HashSet<>()).add(entry.version());
                if (state.current() && entry.lanceBranch().equals(ownRef)) {
                    floors.computeIfAbsent(entry.location(), unused -> new HashMap<>())
                            .merge(entry.lanceBranch(), entry.version(), Math::min);
                }
            }
        }
        Map<String, Map<Optional<String>, VersionRetention>> out = new TreeMap<>();
        pinned.forEach((location, refs) -> {
            Map<Optional<String>, VersionRetention> rules = new HashMap<>();
            refs.forEach((ref, versions) -> rules.put(ref, VersionRetention.of(versions,
                    floors.getOrDefault(location, Map.of()).getOrDefault(ref, Long.MAX_VALUE))));
            out.put(location, rules);
        });
        return out;
    }

    private static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000L;
    }
}
