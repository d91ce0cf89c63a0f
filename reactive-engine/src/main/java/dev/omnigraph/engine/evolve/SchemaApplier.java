package dev.omnigraph.engine.evolve;

import dev.omnigraph.engine.schema.SchemaFiles;
import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.recovery.TablePaths;
import dev.omnigraph.storage.CommittedVersion;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code schema apply} as one exact, recoverable write, holding the schema gate exclusively (every other writer
 * of the root waits): refuse while any recovery intent is pending or any branch but main exists; plan; read,
 * migrate and validate existing rows; stage each rewrite as an Overwrite with the target Arrow schema; write the
 * staged contract; arm the {@code SchemaApply} sidecar; commit each rewrite exactly and create each new type's
 * version-one dataset; confirm; publish once (exact head); promote the contract; retire the sidecar. A failure
 * after arming is resolved on the spot by {@link SchemaApplyRecovery} (forward or back); if that fails too the
 * sidecar stays and every write answers {@code recovery_required} until a read-write open resolves it.
 */
public final class SchemaApplier {
    public static final String PREFIX = "schema_apply";
    public static final String AFTER_STAGING = "after_staging";
    public static final String AFTER_ARM = "after_arm";
    public static final String AFTER_REWRITES = "after_rewrites";
    public static final String AFTER_CONFIRM = "after_confirm";
    public static final String AFTER_PUBLISH = "after_publish";
    public static final String BEFORE_CONTRACT_SWAP = "before_contract_swap";
    public static final String AFTER_CONTRACT_SWAP = "after_contract_swap";
    /** Every failpoint of an apply, in order (the catalog lists them for {@code omnigraph failpoints}). */
    public static final List<String> POINTS = dev.omnigraph.storage.FailpointCatalog.SCHEMA_APPLY_POINTS;

    static {
        List<String> steps = List.of(AFTER_STAGING, AFTER_ARM, AFTER_REWRITES, AFTER_CONFIRM, AFTER_PUBLISH,
                BEFORE_CONTRACT_SWAP, AFTER_CONTRACT_SWAP);
        if (!steps.stream().map(SchemaApplier::point).toList().equals(POINTS)) {
            throw new IllegalStateException("FailpointCatalog.SCHEMA_APPLY_POINTS is out of step with SchemaApplier");
        }
    }

    private final WriteContext ctx;
    private final ObjectStore files;
    private final SchemaFiles.Accepted accepted;

    public SchemaApplier(WriteContext ctx, ObjectStore files, SchemaFiles.Accepted accepted) {
        this.ctx = ctx;
        this.files = files;
        this.accepted = accepted;
    }

    static String point(String step) {
        return PREFIX + "." + step;
    }

    /** The plan against the live main state; changes nothing. */
    public Mono<SchemaPlan> plan(String source) {
        return ctx.manifest().load(GraphBranches.MAIN).map(state -> SchemaPlanner.plan(accepted, source, rowCounts(state)));
    }

    /** Applies {@code source}; emits the applied plan and its commit (none for a no-op). */
    public Mono<SchemaApplyResult> apply(String source, boolean allowDataLoss, Optional<String> actor) {
        return Mono.usingWhen(ctx.gates().exclusiveSchema(),
                permit -> refuseWhilePending().then(requireOnlyMain()).then(Mono.zip(
                                ctx.manifest().load(GraphBranches.MAIN), ctx.manifest().branchIdentity(GraphBranches.MAIN)))
                        .flatMap(loaded -> {
                            ManifestState state = loaded.getT1();
                            SchemaPlan plan = SchemaPlanner.plan(accepted, source, rowCounts(state));
                            if (plan.isNoop()) {
                                return Mono.just(new SchemaApplyResult(plan.steps(), Optional.empty()));
                            }
                            if (plan.losesData() && !allowDataLoss) {
                                return Mono.error(new BadRequest("the schema change loses data ("
                                        + plan.steps().stream().filter(s -> s.effect() == PlanStep.Effect.LOSES_DATA)
                                        .map(PlanStep::render).toList() + "); pass --allow-data-loss to apply it"));
                            }
                            return new MigratedRows(ctx, plan, state).load()
                                    .flatMap(rows -> stageAndApply(plan, state, loaded.getT2(), rows, actor))
                                    .map(commit -> new SchemaApplyResult(plan.steps(), Optional.of(commit)));
                        }),
                Permit::releaseAsync, (permit, error) -> permit.releaseAsync(), Permit::releaseAsync);
    }

    private Mono<Void> refuseWhilePending() {
        return ctx.sidecars().list().next().flatMap(pending -> Mono.error(new RecoveryRequired(pending.operationId(),
                "a " + pending.writerKind() + " write is unfinished; schema apply waits for its recovery", null)));
    }

    /** Schema apply rewrites main's tables only, so it is refused while other branches could still see them. */
    private Mono<Void> requireOnlyMain() {
        return ctx.manifest().branches().flatMap(branches -> {
            List<String> others = branches.stream().map(BranchIdentity::name)
                    .filter(name -> !name.equals(GraphBranches.MAIN)).sorted().toList();
            return others.isEmpty() ? Mono.empty() : Mono.error(new Conflict("schema apply needs a graph with only "
                    + "main; delete or merge these branches first: " + String.join(", ", others)));
        });
    }

    private record Staged(TableMigration migration, TableEntry pin, StagedHandle handle) {
    }

    private Mono<GraphCommit> stageAndApply(SchemaPlan plan, ManifestState state, BranchIdentity main,
                                            Map<String, List<Map<String, Object>>> rows, Optional<String> actor) {
        List<Staged> staged = java.util.Collections.synchronizedList(new ArrayList<>());
        return Flux.fromIterable(plan.migrations()).filter(TableMigration::rewrite)
                .concatMap(migration -> {
                    TableEntry pin = state.table(migration.acceptedKey()).orElseThrow();
                    return requireNoDrift(pin).then(ctx.tables().open(ctx.ref(pin), java.util.OptionalLong.of(pin.version())))
                            .flatMap(snapshot -> ctx.tables().stageOverwrite(snapshot,
                                    rows.getOrDefault(migration.acceptedKey(), List.of()),
                                    migration.target().arrowSchema(), Map.of("omnigraph.writer", PREFIX)))
                            .doOnNext(handle -> staged.add(new Staged(migration, pin, handle)));
                })
                .then(Mono.defer(() -> armed(plan, state, main, List.copyOf(staged), actor)))
                .onErrorResume(error -> discard(staged).then(Mono.error(error)));
    }

    private Mono<Void> requireNoDrift(TableEntry pin) {
        return ctx.tables().head(ctx.ref(pin)).flatMap(head -> head == pin.version() ? Mono.<Void>empty()
                : Mono.error(new Conflict(pin.tableKey() + " has HEAD " + head + " but is published at " + pin.version()
                        + "; before a schema apply, " + Conflict.UNCOVERED_DRIFT)));
    }

    private Mono<GraphCommit> armed(SchemaPlan plan, ManifestState state, BranchIdentity main, List<Staged> staged,
                                    Optional<String> actor) {
        List<SchemaIntent.Planned> effects = new ArrayList<>();
        for (Staged s : staged) {
            effects.add(new SchemaIntent.Planned(s.pin().stableTableId(), s.pin().incarnationId(),
                    s.migration().target().tableKey(), TablePaths.recorded(s.pin().location()), s.pin().version(),
                    Sidecar.Txn.of(s.handle().identity())));
        }
        for (CatalogTable table : plan.created()) {
            effects.add(new SchemaIntent.Planned(table.typeId(), table.incarnationId(), table.tableKey(),
                    TablePaths.recorded(table.datasetPath()), 0, new Sidecar.Txn(0, null)));
        }
        Sidecar intent = SchemaIntent.armed(Ulid.next(), main, state.head(), accepted.state().schemaIrHash(),
                accepted.state().schemaIdentityDomain(), state.writerEpoch(), actor, nowMicros(), effects);
        return requireCreatePathsFree(plan)
                .then(ContractStaging.write(files, plan.target()))
                .then(SchemaHistory.keep(files, intent.protocolV3().lineage().graphCommitId(), accepted))
                .then(ctx.failpoints().hit(point(AFTER_STAGING)))
                .then(ctx.sidecars().write(intent))
                .then(Mono.defer(() -> effects(plan, intent, state, main, staged)
                        .onErrorResume(error -> resolve(intent, error))));
    }

    /** New types get fresh identities, so their dataset paths must be free (a leftover is never adopted). */
    private Mono<Void> requireCreatePathsFree(SchemaPlan plan) {
        return Flux.fromIterable(plan.created())
                .concatMap(table -> files.list(table.datasetPath() + "/").flatMap(found -> found.isEmpty() ? Mono.<Void>empty()
                        : Mono.error(new Conflict("the dataset path " + table.datasetPath() + " of new type "
                                + table.typeName() + " is not empty; refusing to adopt it"))))
                .then();
    }

    private Mono<GraphCommit> effects(SchemaPlan plan, Sidecar intent, ManifestState state, BranchIdentity main,
                                      List<Staged> staged) {
        Map<String, ApplyDelta.Landed> landed = new LinkedHashMap<>();
        return ctx.failpoints().hit(point(AFTER_ARM))
                .thenMany(Flux.fromIterable(staged).concatMap(s -> ctx.tables().commitStaged(s.handle()).doOnNext(achieved -> {
                    if (!achieved.isExactly(s.handle().identity())) {
                        throw new StorageFault(s.pin().tableKey() + " rewrite landed as " + achieved + ", not exactly on "
                                + s.handle().identity(), null);
                    }
                    landed.put(s.migration().target().tableKey(), landedOf(achieved));
                })))
                .thenMany(Flux.fromIterable(plan.created()).concatMap(table -> ctx.tables()
                        .create(ctx.root() + "/" + table.datasetPath(), table.arrowSchema())
                        .doOnNext(created -> landed.put(table.tableKey(), new ApplyDelta.Landed(created.version(), 0)))))
                .then(ctx.failpoints().hit(point(AFTER_REWRITES)))
                .then(Mono.defer(() -> ctx.sidecars().write(SchemaIntent.confirmed(intent, landed))))
                .then(ctx.failpoints().hit(point(AFTER_CONFIRM)))
                .then(Mono.defer(() -> ctx.publisher().publish(ApplyDelta.request(state, main, plan.target(),
                        landed, intent.protocolV3().lineage()))))
                .flatMap(commit -> ctx.failpoints().hit(point(AFTER_PUBLISH))
                        .then(ContractStaging.promote(files, ctx.failpoints()))
                        .then(ctx.sidecars().delete(intent.operationId()))
                        .thenReturn(commit));
    }

    /**
     * After arming, a failure is compensated at once from the durable intent: finished when its commit is already
     * visible (the apply succeeded after all), else rolled back (as every writer compensates its own attempt).
     */
    private Mono<GraphCommit> resolve(Sidecar intent, Throwable original) {
        return ctx.sidecars().read(intent.operationId())
                .flatMap(durable -> new SchemaApplyRecovery(ctx, files).compensate(durable.orElse(intent)))
                .flatMap(forward -> forward
                        ? ctx.manifest().commit(intent.protocolV3().lineage().graphCommitId())
                        : Mono.<GraphCommit>error(original))
                .onErrorMap(failure -> failure != original, failure -> {
                    RecoveryRequired stuck = new RecoveryRequired(intent.operationId(), "schema apply failed after "
                            + "arming (" + original.getMessage() + ") and could not resolve itself: "
                            + failure.getMessage() + "; reopen the graph read-write", original);
                    stuck.addSuppressed(failure);
                    return stuck;
                });
    }

    private Mono<Void> discard(List<Staged> staged) {
        return Flux.fromIterable(List.copyOf(staged)).concatMap(s -> ctx.tables().discard(s.handle())).then();
    }

    private static ApplyDelta.Landed landedOf(CommittedVersion achieved) {
        return new ApplyDelta.Landed(achieved.version(), achieved.rowCount());
    }

    static Map<String, Long> rowCounts(ManifestState state) {
        Map<String, Long> counts = new LinkedHashMap<>();
        state.liveTables().forEach(entry -> counts.put(entry.tableKey(), entry.rowCount()));
        return counts;
    }

    static long nowMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000L;
    }
}
