package dev.omnigraph.engine.index;

import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.engine.index.IndexIntent.TableWork;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.write.FirstTouchFork;
import dev.omnigraph.engine.write.RecoveryCoordinator;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.engine.write.WriteToken;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.recovery.SidecarRecovery;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.TransactionIdentity;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.ReadSetChanged;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.ExpectedHead;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.PublishRequest;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code index ensure}: the EnsureIndices writer. For one graph branch: heal → branch gate → recovery barrier →
 * token → plan (per table, the indexes its schema implies that its pinned version lacks: existence-gated) → nothing
 * missing: done, no commit → table gates → recheck (authority, no drift) → stage each table's indexes as ONE
 * CreateIndex transaction on its pin (segments written, nothing visible) → arm the sidecar naming them → fork
 * first-touch tables and stage theirs on the fork → commit each table's transaction, landing exactly at its pin + 1
 * → confirm → one publish with the exact head → delete the sidecar. A failure after arming is compensated on the spot
 * by recovery (restore to the pins, or finish if already published), like every writer.
 */
public final class IndexEnsurer {
    /** The operation of an ensure-indices commit (it changes no row). */
    public static final String OPERATION = "ensure_indices";

    private static final Logger LOG = LoggerFactory.getLogger(IndexEnsurer.class);
    private final WriteContext ctx;

    public IndexEnsurer(WriteContext ctx) {
        this.ctx = ctx;
    }

    static String point(String step) {
        return FailpointCatalog.point(FailpointCatalog.ENSURE_INDICES, step);
    }

    /** Ensures every table of {@code branch} has the indexes its schema implies. */
    public Mono<EnsureResult> ensure(String branch, Optional<String> actor) {
        return new RecoveryCoordinator(ctx).heal(branch)
                .then(Mono.usingWhen(ctx.gates().forBranch(branch), permit -> planned(branch, actor),
                        Permit::releaseAsync, (permit, error) -> permit.releaseAsync(), Permit::releaseAsync));
    }

    private Mono<EnsureResult> planned(String branch, Optional<String> actor) {
        return barrier(branch)
                .then(WriteToken.capture(ctx.manifest(), branch, ctx.schemaIrHash()))
                .flatMap(token -> plan(token).flatMap(work -> work.isEmpty()
                        ? Mono.just(new EnsureResult(branch, Map.of(), Optional.empty()))
                        : Mono.usingWhen(ctx.gates().forTables(branch, keys(work)),
                                permit -> recheck(token, work)
                                        .then(ctx.failpoints().hit(point(FailpointCatalog.AFTER_GATES)))
                                        .then(Mono.defer(() -> armed(token, work, actor))),
                                Permit::releaseAsync, (permit, error) -> permit.releaseAsync(), Permit::releaseAsync)
                                .map(commit -> new EnsureResult(branch, built(work), Optional.of(commit)))));
    }

    /** Per live table, what it lacks at its pin; tables that lack nothing are left out. */
    private Mono<List<TableWork>> plan(WriteToken token) {
        IndexBuilds builds = new IndexBuilds(ctx.tables());
        Optional<String> ownRef = GraphBranches.lanceRef(token.branch());
        return Flux.fromIterable(token.state().liveTables())
                .concatMap(pin -> {
                    Optional<CatalogTable> table = ctx.catalog().table(pin.tableKey());
                    if (table.isEmpty()) {
                        return Mono.empty();
                    }
                    return builds.missing(table.get(), ctx.ref(pin), pin.version(), pin.rowCount())
                            .filter(specs -> !specs.isEmpty())
                            .map(specs -> new TableWork(pin, ownRef, ctx.ref(pin).path(), specs));
                })
                .collectList();
    }

    /** Under the branch gate nothing is healed: any sidecar on the branch blocks the ensure. */
    private Mono<Void> barrier(String branch) {
        String field = GraphBranches.lanceRef(branch).orElse(null);
        return ctx.sidecars().list().filter(sidecar -> Objects.equals(sidecar.branch(), field)).next()
                .flatMap(pending -> Mono.error(new RecoveryRequired(pending.operationId(), "branch " + branch
                        + " has an unfinished " + pending.writerKind() + " write; index ensure waits for its recovery", null)));
    }

    /** Another process may have moved the branch or a table since the plan: refuse rather than build on it. */
    private Mono<Void> recheck(WriteToken token, List<TableWork> work) {
        return barrier(token.branch())
                .then(WriteToken.capture(ctx.manifest(), token.branch(), ctx.schemaIrHash()))
                .flatMap(fresh -> !token.sameAuthority(fresh)
                        ? Mono.error(new ReadSetChanged("graph_head:" + token.branch(), token.head().orElse("<none>"),
                                fresh.head().orElse("<none>")))
                        : Flux.fromIterable(work).filter(table -> !FirstTouchFork.inherited(token, table.pin()))
                                .concatMap(table -> ctx.tables().head(ctx.ref(table.pin())).flatMap(head -> head == table.pin().version()
                                        ? Mono.<Void>empty()
                                        : Mono.error(new Conflict(table.pin().tableKey() + " has HEAD " + head
                                                + " but is published at " + table.pin().version()
                                                + "; run `omnigraph repair` before index ensure"))))
                                .then());
    }

    /** The transaction properties of an ensure's CreateIndex transactions (plus the intent id). */
    private static final Map<String, String> PROPERTIES = Map.of("omnigraph.writer", OPERATION);

    /** Stages every non-first-touch table's transaction, then arms; a failure before the arm discards them. */
    private Mono<GraphCommit> armed(WriteToken token, List<TableWork> work, Optional<String> actor) {
        String operationId = Ulid.next();
        Map<String, String> properties = dev.omnigraph.storage.TransactionIdentity.withIntent(PROPERTIES, operationId);
        Sidecar intent = IndexIntent.armed(ctx, operationId, token, Ulid.next(), actor, nowMicros(), work);
        List<StagedHandle> staged = java.util.Collections.synchronizedList(new ArrayList<>());
        return Flux.fromIterable(work)
                .concatMap(table -> FirstTouchFork.inherited(token, table.pin()) ? Mono.just(Optional.<StagedHandle>empty())
                        : stage(table, properties).doOnNext(staged::add).map(Optional::of))
                .collectList()
                .flatMap(handles -> ctx.sidecars().write(intent).thenReturn(handles))
                .onErrorResume(error -> discard(staged).then(Mono.error(error)))
                .flatMap(handles -> effects(token, intent, work, handles, properties)
                        .onErrorResume(error -> discard(staged).then(compensate(token, intent, error))));
    }

    /** One table's CreateIndex transaction on its pin (or fork); it must stage: the plan found work there. */
    private Mono<StagedHandle> stage(TableWork table, Map<String, String> properties) {
        TableSnapshot pinned = TableSnapshot.pinned(target(table), table.pin().version(), table.pin().rowCount());
        return new IndexBuilds(ctx.tables()).stage(pinned, table.specs(), properties)
                .flatMap(handle -> Mono.justOrEmpty(handle).switchIfEmpty(Mono.error(() -> new StorageFault(
                        table.pin().tableKey() + " has no index work at version " + table.pin().version()
                                + " although the plan found " + table.names(), null))));
    }

    private Mono<Void> discard(List<StagedHandle> handles) {
        return Flux.fromIterable(List.copyOf(handles)).concatMap(handle -> ctx.tables().discard(handle)
                .onErrorResume(error -> Mono.empty())).then();
    }

    private Mono<GraphCommit> effects(WriteToken token, Sidecar intent, List<TableWork> work,
                                      List<Optional<StagedHandle>> handles, Map<String, String> properties) {
        List<TransactionIdentity> achieved = new ArrayList<>();
        return ctx.failpoints().hit(point(FailpointCatalog.AFTER_ARM))
                .then(forks(token, work))
                .thenMany(Flux.range(0, work.size()).concatMap(i -> handles.get(i).map(Mono::just)
                        .orElseGet(() -> stage(work.get(i), properties))
                        .flatMap(handle -> ctx.tables().commitStaged(handle).flatMap(landed -> landed.isExactly(handle.identity())
                                ? Mono.just(landed.transaction())
                                : Mono.<TransactionIdentity>error(new StorageFault(work.get(i).pin().tableKey()
                                        + " index commit landed as " + landed + ", not exactly on " + handle.identity(), null))))
                        .doOnNext(achieved::add)
                        .flatMap(landed -> ctx.failpoints().hit(point(FailpointCatalog.AFTER_COMMIT + (i + 1))))))
                .then(Mono.defer(() -> ctx.sidecars().write(IndexIntent.confirmed(intent, work, achieved))))
                .then(ctx.failpoints().hit(point(FailpointCatalog.AFTER_CONFIRM)))
                .then(Mono.defer(() -> ctx.publisher().publish(publishRequest(token, intent, work))))
                .flatMap(commit -> ctx.failpoints().hit(point(FailpointCatalog.AFTER_PUBLISH))
                        .then(ctx.failpoints().hit(point(FailpointCatalog.BEFORE_SIDECAR_DELETE)))
                        .then(ctx.sidecars().delete(intent.operationId()).then().onErrorResume(error -> {
                            LOG.warn("published index ensure {} could not delete its sidecar; the next heal will: {}",
                                    intent.operationId(), error.toString());
                            return Mono.empty();
                        }))
                        .thenReturn(commit));
    }

    /** First-touch tables get their branch ref (at the inherited version) before anything is built on them. */
    private Mono<Void> forks(WriteToken token, List<TableWork> work) {
        List<TableWork> inherited = work.stream().filter(table -> FirstTouchFork.inherited(token, table.pin())).toList();
        if (inherited.isEmpty()) {
            return Mono.empty();
        }
        FirstTouchFork fork = new FirstTouchFork(ctx);
        return Flux.fromIterable(inherited)
                .concatMap(table -> fork.fork(table.pin(), table.lanceBranch().orElseThrow()))
                .then(ctx.failpoints().hit(point(FailpointCatalog.AFTER_FORK)));
    }

    private static TableRef target(TableWork table) {
        return new TableRef(table.path(), table.lanceBranch());
    }

    private PublishRequest publishRequest(WriteToken token, Sidecar intent, List<TableWork> work) {
        Map<String, Long> expected = new LinkedHashMap<>();
        List<TableEntry> updates = new ArrayList<>();
        for (TableWork table : work) {
            expected.put(table.pin().tableKey(), table.pin().version());
            updates.add(table.pin().pinnedAt(table.target(), table.lanceBranch(), table.pin().rowCount()));
        }
        Sidecar.Lineage lineage = intent.protocolV3().lineage();
        return new PublishRequest(token.branch(), new ExpectedHead.Exact(token.head()), Optional.of(token.branchIdentity()),
                expected, updates, lineage.graphCommitId(), Optional.empty(), Optional.ofNullable(lineage.actorId()),
                lineage.createdAt(), lineage.operation());
    }

    /** After arming, a failure is resolved at once; a rolled-forward ensure succeeded after all. */
    private Mono<GraphCommit> compensate(WriteToken token, Sidecar intent, Throwable original) {
        String commitId = intent.protocolV3().lineage().graphCommitId();
        return new RecoveryCoordinator(ctx).compensate(intent.operationId())
                .flatMap(outcome -> outcome instanceof SidecarRecovery.Outcome.RolledForward
                        ? ctx.manifest().commitOn(token.branch(), commitId).flatMap(Mono::justOrEmpty)
                        : Mono.<GraphCommit>error(original))
                .onErrorMap(failure -> failure != original, failure -> {
                    RecoveryRequired stuck = new RecoveryRequired(intent.operationId(), "index ensure on branch "
                            + token.branch() + " failed after its sidecar was armed (" + original.getMessage()
                            + ") and could not undo itself: " + failure.getMessage(), original);
                    stuck.addSuppressed(failure);
                    return stuck;
                });
    }

    private static TreeSet<String> keys(List<TableWork> work) {
        TreeSet<String> keys = new TreeSet<>();
        work.forEach(table -> keys.add(table.pin().tableKey()));
        return keys;
    }

    private static Map<String, List<String>> built(List<TableWork> work) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        work.forEach(table -> out.put(table.pin().tableKey(), table.names()));
        return out;
    }

    private static long nowMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000L;
    }
}
