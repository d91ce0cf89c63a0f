package dev.omnigraph.engine.branch;

import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.engine.write.RecoveryCoordinator;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.LanceBranchNames;
import dev.omnigraph.storage.ValidText;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.OmnigraphException;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Creates and deletes graph branches. The authority of a branch is its Lance ref on {@code __manifest}: create is
 * one native create (a shallow clone, so the branch inherits every table pin and the lineage at its fork point,
 * and no table is touched); delete removes that ref first, then reclaims the branch's table forks best effort.
 * Names are checked before any physical step; both run under the schema (shared), target-branch and table gates.
 */
public final class BranchControl {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BranchControl.class);

    private final WriteContext ctx;

    public BranchControl(WriteContext ctx) {
        this.ctx = ctx;
    }

    /** Where a new branch starts: the manifest of {@code branch} at {@code manifestVersion}. */
    private record ForkPoint(String branch, long manifestVersion) {
    }

    /** Creates branch {@code name} from {@code from} (a branch name or a commit id; default main). */
    public Mono<BranchResult.Created> create(String name, Optional<String> from) {
        return Mono.defer(() -> {
            ValidText.require("branch", name);
            LanceBranchNames.requireValid(name);
            String source = from.orElse(GraphBranches.MAIN);
            ValidText.require("from", source);
            return underGates(name, new TreeSet<>(), () -> ctx.manifest().branches()
                    .flatMap(live -> {
                        List<String> names = live.stream().map(BranchIdentity::name).toList();
                        if (names.contains(name)) {
                            return Mono.error(new Conflict("branch " + name + " already exists"));
                        }
                        // main's files are not under tree/, so only other branches can clash by prefix.
                        LanceBranchNames.requireDisjoint(name, names.stream().filter(n -> !n.equals(GraphBranches.MAIN)).toList());
                        return forkPoint(source, names);
                    })
                    .flatMap(point -> discardOrphans(name)
                            .then(ctx.failpoints().hit(FailpointCatalog.BRANCH_BEFORE_CREATE))
                            .then(ctx.tables().createBranch(ctx.manifest().ref(point.branch()), point.manifestVersion(), name))
                            .flatMap(created -> ctx.failpoints().hit(FailpointCatalog.BRANCH_AFTER_CREATE)
                                    .thenReturn(new BranchResult.Created(BranchIdentity.of(created), source)))));
        });
    }

    /** A live branch forks from its latest manifest; anything else must be a commit id of this graph. */
    private Mono<ForkPoint> forkPoint(String source, List<String> liveBranches) {
        if (liveBranches.contains(source)) {
            return ctx.manifest().latest(source).map(snapshot -> new ForkPoint(source, snapshot.version()));
        }
        return ctx.manifest().commit(source)
                .map(commit -> new ForkPoint(commit.branchName(), commit.manifestVersion()))
                .onErrorMap(NotFound.class, missing -> new NotFound("branch", source,
                        "cannot create a branch from '" + source + "': no branch or commit of that name"));
    }

    /**
     * Deletes branch {@code name}. Refused for main (invalid name), for an unknown branch (404) and while other
     * branches fork from it (409 naming them). A sidecar left on the branch becomes an orphan and is discarded
     * with an audit row; the branch's table forks are reclaimed after its authority is gone.
     */
    public Mono<BranchResult.Deleted> delete(String name) {
        return Mono.defer(() -> {
            ValidText.require("branch", name);
            LanceBranchNames.requireValid(name);
            return ctx.manifest().load(name).flatMap(before -> {
                SortedSet<String> tableKeys = new TreeSet<>(before.tables().keySet());
                return underGates(name, tableKeys, () -> ctx.manifest().branchIdentity(name)
                        .flatMap(identity -> requireNoDependents(name).then(ctx.manifest().load(name))
                                .flatMap(state -> removeAuthority(name, identity)
                                        .then(Mono.fromRunnable(() -> ctx.manifest().forget(name)))
                                        .then(ctx.failpoints().hit(FailpointCatalog.BRANCH_AFTER_DELETE_AUTHORITY))
                                        .then(discardOrphans(name))
                                        .then(reclaimForks(name, state)))));
            });
        });
    }

    /** Other branches created from {@code name}, or pinning tables on its forks, keep it alive. */
    private Mono<Void> requireNoDependents(String name) {
        return ctx.manifest().branches().flatMap(live -> {
            List<String> children = live.stream().filter(b -> b.parent().equals(Optional.of(name)))
                    .map(BranchIdentity::name).toList();
            if (!children.isEmpty()) {
                return Mono.error(new Conflict("branch " + name + " cannot be deleted: branches "
                        + String.join(", ", children) + " were created from it and still read its tables"));
            }
            return Flux.fromIterable(live).map(BranchIdentity::name).filter(other -> !other.equals(name))
                    .concatMap(other -> ctx.manifest().load(other).filter(state -> readsThrough(state, name)).map(ManifestState::branch))
                    .collectList()
                    .flatMap(readers -> readers.isEmpty() ? Mono.<Void>empty()
                            : Mono.error(new Conflict("branch " + name + " cannot be deleted: branches "
                                    + String.join(", ", readers) + " still read tables through its forks")));
        });
    }

    private static boolean readsThrough(ManifestState state, String branch) {
        return state.liveTables().stream().anyMatch(entry -> entry.lanceBranch().equals(Optional.of(branch)));
    }

    /**
     * Removes the branch's ref on {@code __manifest}. After an ambiguous failure the ref is re-read: gone means
     * done; the same identity keeps the original error; another identity is a delete/recreate race.
     */
    private Mono<Void> removeAuthority(String name, BranchIdentity identity) {
        return ctx.tables().deleteBranch(ctx.manifest().manifestPath(), name)
                .onErrorResume(failure -> !(failure instanceof Conflict), failure -> ctx.manifest().branches()
                        .flatMap(live -> {
                            Optional<BranchIdentity> now = live.stream().filter(b -> b.name().equals(name)).findFirst();
                            if (now.isEmpty()) {
                                return Mono.<Void>empty();
                            }
                            if (now.get().equals(identity)) {
                                return Mono.<Void>error(failure);
                            }
                            return Mono.<Void>error(new Conflict("branch " + name + " was deleted and recreated while this"
                                    + " delete ran (" + identity + " → " + now.get() + "); nothing more was deleted", failure));
                        }));
    }

    /** Sidecars naming a branch that no longer exists: recovery discards them as orphans, with an audit row. */
    private Mono<Void> discardOrphans(String name) {
        return ctx.sidecars().list()
                .filter(sidecar -> Objects.equals(sidecar.branch(), name))
                .concatMap(sidecar -> new RecoveryCoordinator(ctx).compensate(sidecar.operationId()))
                .then();
    }

    /**
     * Best effort: each table's ref named like the branch is unreachable now. A failure is logged and reported
     * as a leftover; a ref whose name clashes by prefix with another ref on that table is left alone, because
     * Lance deletes branch files by character prefix.
     */
    private Mono<BranchResult.Deleted> reclaimForks(String name, ManifestState state) {
        return Flux.fromIterable(state.liveTables())
                .concatMap(entry -> reclaimFork(entry, name).onErrorResume(failure -> {
                    LOG.warn("could not reclaim fork {} of {}; cleanup reclaims it later: {}", name, entry.tableKey(),
                            failure.toString());
                    return Mono.just(Optional.of(entry.tableKey()));
                }))
                .concatMap(Mono::justOrEmpty)
                .collectList()
                .map(leftovers -> new BranchResult.Deleted(name, leftovers));
    }

    private Mono<Optional<String>> reclaimFork(TableEntry entry, String name) {
        String path = ctx.root() + "/" + entry.location();
        return ctx.tables().listBranches(path).flatMap(refs -> {
            List<String> names = refs.stream().map(ref -> ref.name()).toList();
            if (!names.contains(name)) {
                return Mono.just(Optional.<String>empty());
            }
            try {
                LanceBranchNames.requireDisjoint(name, names);
            } catch (OmnigraphException clash) {
                return Mono.just(Optional.of(entry.tableKey()));
            }
            return ctx.tables().deleteBranch(path, name).thenReturn(Optional.<String>empty());
        });
    }

    /** Under the gates, after the graph-wide schema-apply barrier (a pending apply refuses create and delete). */
    private <T> Mono<T> underGates(String branch, SortedSet<String> tableKeys, java.util.function.Supplier<Mono<T>> work) {
        return Mono.usingWhen(ctx.gates().forWrite(branch, tableKeys),
                permit -> new RecoveryCoordinator(ctx).schemaApplyBarrier().then(Mono.defer(work::get)),
                Permit::releaseAsync, (permit, error) -> permit.releaseAsync(), Permit::releaseAsync);
    }
}
