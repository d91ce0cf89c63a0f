package dev.omnigraph.engine.cleanup;

import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.engine.merge.MergeBase;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.recovery.RecoveryAudit;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.engine.read.KeyRowsCache;
import dev.omnigraph.engine.read.TopologyCache;
import dev.omnigraph.storage.VersionGcPlan;
import dev.omnigraph.storage.VersionRetention;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.ManifestSchema;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code cleanup}: version GC of every table dataset, of {@code __manifest} and of the recovery audit log. The
 * retention rule, in graph terms: on every live branch the newest {@code keep} commits and every commit younger than
 * {@code olderThan} stay readable (time travel to them works), and so do each branch's current state and head commit
 * and the merge base of each branch with main and with the branch it was created from (so a later merge still finds
 * its base). A table version is kept when such a state pins it, when it is at or above the published pin of the
 * branch owning its ref (unpublished drift stays for {@code repair}), when it is its ref's latest, or when a Lance
 * branch (a graph branch's table fork) was forked from it. A {@code __manifest} version is kept when such a state was
 * read at it, when it is its ref's latest, or when a graph branch was forked from it. The audit log keeps its latest
 * version (which holds every row). The storage adapter deletes the other version manifests and the files only they
 * reference ({@link HistoryRetention}), listing, reading and deleting through the root's object store, so local and
 * S3 roots are collected by the same rule.
 *
 * <p>Runs under the exclusive schema gate (no in-process writer can stage or commit meanwhile; other processes are
 * held off by the root lock) and refuses at entry while any recovery sidecar is pending, since recovery may need
 * versions a GC would remove. Tables go first, then {@code __manifest}, then the audit log; per dataset the files go
 * first, then the manifests: a kill at any point leaves every kept version whole, and running cleanup again finishes
 * the job.
 */
public final class Cleanup {
    /** Where {@code __manifest} and the audit log sit under the root, as cleanup reports them. */
    static final String MANIFEST = ManifestSchema.DIRECTORY;
    static final String AUDIT_LOG = RecoveryAudit.DIRECTORY;

    private final WriteContext ctx;
    /** The graph root's object store (its directory or S3 prefix): the collector lists, reads and deletes through it. */
    private final ObjectStore files;

    public Cleanup(WriteContext ctx, ObjectStore files) {
        this.ctx = ctx;
        this.files = files;
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
                .concatWith(mergeBases(branches))
                .collectList()
                .flatMap(kept -> {
                    Map<String, Map<Optional<String>, VersionRetention>> tables = HistoryRetention.tables(kept);
                    return OrphanForks.reclaim(ctx, branches.stream().map(BranchIdentity::name).collect(Collectors.toSet()),
                                    tables, orphanCutoff, options.confirm())
                            .flatMap(forks -> datasets(tables, kept)
                                    .flatMap(all -> collectVersions(all, orphanCutoff, options.confirm()))
                                    .map(collected -> new CleanupReport(options.confirm(), collected, forks)));
                }));
    }

    /** Every dataset to collect, in order: the tables by location, then {@code __manifest}, then the audit log. */
    private Mono<Map<String, Map<Optional<String>, VersionRetention>>> datasets(
            Map<String, Map<Optional<String>, VersionRetention>> tables, List<KeptState> kept) {
        Map<String, Map<Optional<String>, VersionRetention>> all = new LinkedHashMap<>(tables);
        all.put(MANIFEST, HistoryRetention.manifest(kept));
        return ctx.tables().open(TableRef.main(ctx.root() + "/" + AUDIT_LOG), OptionalLong.empty())
                .map(audit -> {
                    all.put(AUDIT_LOG, HistoryRetention.auditLog());
                    return all;
                })
                .onErrorResume(NotFound.class, noRecoveryYet -> Mono.just(all));
    }

    /** Plans (and, confirmed, applies) the version GC of each dataset in order. */
    private Mono<List<CleanupReport.TableCleanup>> collectVersions(
            Map<String, Map<Optional<String>, VersionRetention>> byLocation, Instant orphanCutoff, boolean confirm) {
        return Flux.fromIterable(byLocation.entrySet())
                .index()
                // One step per dataset (an observation and timer when the handle is instrumented: progress).
                .concatMap(indexed -> ctx.telemetry().observe("omnigraph.maintenance.step", "cleanup_dataset",
                        ctx.tables().planVersionGc(files, indexed.getT2().getKey(), indexed.getT2().getValue(), orphanCutoff)
                                .flatMap(plan -> confirm ? apply(indexed.getT1() + 1, plan).thenReturn(plan) : Mono.just(plan))
                                .map(plan -> Map.entry(indexed.getT2().getKey(), plan))))
                .filter(entry -> !entry.getValue().isEmpty())
                .map(entry -> new CleanupReport.TableCleanup(entry.getKey(), entry.getValue().manifests().size(),
                        entry.getValue().files().size(), entry.getValue().bytes()))
                .collectList();
    }

    private Mono<Void> apply(long ordinal, VersionGcPlan plan) {
        // A cached adjacency or key index never outlives its version: dropped before any of the version's files go.
        List<Long> versions = plan.manifests().stream().map(VersionGcPlan.Victim::version).toList();
        Mono<Void> forget = Mono.fromRunnable(() -> {
            TopologyCache.shared().dropVersions(plan.path(), versions);
            KeyRowsCache.shared().dropVersions(plan.path(), versions);
        });
        return forget.then(ctx.tables().applyVersionGc(files, plan, VersionGcPlan.Phase.FILES))
                .then(ctx.failpoints().hit(FailpointCatalog.CLEANUP_AFTER_FILES + ordinal))
                .then(ctx.tables().applyVersionGc(files, plan, VersionGcPlan.Phase.MANIFESTS))
                .then(ctx.failpoints().hit(FailpointCatalog.CLEANUP_AFTER_MANIFESTS + ordinal));
    }

    /** The branch's current state, then the state of its head commit and every commit the options keep. */
    private Flux<KeptState> keptStates(BranchIdentity branch, CleanupOptions options, Instant now) {
        long youngestDropped = options.olderThan().map(age -> micros(now.minus(age))).orElse(Long.MAX_VALUE);
        int newest = Math.max(1, options.keep().orElse(0)); // the head commit: time travel to "now" by its id
        Mono<KeptState> current = ctx.manifest().load(branch.name()).map(state -> new KeptState(branch, state, true));
        Flux<KeptState> commits = ctx.manifest().commits(branch.name())
                .index()
                .filter(indexed -> indexed.getT1() < newest || indexed.getT2().createdAtMicros() >= youngestDropped)
                .concatMap(indexed -> stateOf(indexed.getT2()).map(state -> new KeptState(branch, state, false)));
        return current.concatWith(commits);
    }

    /** The state of the merge base of every other live branch with main and with its parent branch. */
    private Flux<KeptState> mergeBases(List<BranchIdentity> branches) {
        Set<String> live = branches.stream().map(BranchIdentity::name).collect(Collectors.toSet());
        return Flux.fromIterable(branches)
                .filter(branch -> !branch.name().equals(GraphBranches.MAIN))
                .concatMap(branch -> Flux.fromIterable(new java.util.TreeSet<>(List.of(GraphBranches.MAIN,
                                branch.parent().filter(live::contains).orElse(GraphBranches.MAIN))))
                        .concatMap(other -> mergeBase(branch, other)));
    }

    private Mono<KeptState> mergeBase(BranchIdentity branch, String other) {
        return Mono.zip(ctx.manifest().load(branch.name()), ctx.manifest().load(other)).flatMap(heads -> {
            if (heads.getT1().head().isEmpty() || heads.getT2().head().isEmpty()) {
                return Mono.empty(); // a branch without commits of its own: its base is its fork point, kept anyway
            }
            return ctx.manifest().commits(branch.name()).concatWith(ctx.manifest().commits(other)).collectList()
                    .flatMap(commits -> Mono.<GraphCommit>fromCallable(() ->
                                    MergeBase.of(commits, heads.getT1().head().get(), heads.getT2().head().get()))
                            .onErrorResume(BadRequest.class, unrelated -> Mono.empty()))
                    .flatMap(this::stateOf)
                    .map(state -> new KeptState(branch, state, false));
        });
    }

    /** The graph as of {@code commit}; empty when its manifest version is gone (outside an earlier retention). */
    private Mono<ManifestState> stateOf(GraphCommit commit) {
        return ctx.manifest().loadAt(commit.branchName(), commit.manifestVersion())
                .onErrorResume(NotFound.class, gone -> Mono.empty());
    }

    private static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000L;
    }
}
