package dev.omnigraph.engine.write;

import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.recovery.BulkSweep;
import dev.omnigraph.recovery.RecoveryAudit;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.recovery.SidecarRecovery;
import dev.omnigraph.recovery.SidecarRecovery.Mode;
import dev.omnigraph.recovery.SidecarRecovery.Outcome;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.manifest.GraphBranches;
import java.util.Objects;
import java.util.TreeSet;
import reactor.core.publisher.Mono;

/**
 * Runs recovery at its three entry points, each with the right gates: the full sweep of a read-write open
 * (schema gate exclusive: waits out every in-process writer), the roll-forward-only healer at write entry
 * (schema shared, branch and the sidecar's tables), and a writer's compensation of its own failed attempt (under
 * the gates the writer already holds).
 */
public final class RecoveryCoordinator {
    private final WriteContext ctx;
    private final SidecarRecovery recovery;

    public RecoveryCoordinator(WriteContext ctx) {
        this.ctx = ctx;
        this.recovery = new SidecarRecovery(ctx.tables(), ctx.manifest(), ctx.publisher(), ctx.sidecars(),
                new RecoveryAudit(ctx.root(), ctx.tables()), ctx.failpoints());
    }

    /**
     * Read-write open: reloads the sidecar directory (the start of this process's view of it) and resolves every
     * pending sidecar in one bulk sweep; a refused one fails the open loudly before anything is touched.
     */
    public Mono<Void> sweep() {
        return Mono.usingWhen(ctx.gates().exclusiveSchema(),
                permit -> new BulkSweep(ctx.tables(), ctx.manifest(), ctx.publisher(), ctx.sidecars(),
                        new RecoveryAudit(ctx.root(), ctx.tables()), ctx.failpoints())
                        .onResolved((operationId, outcome) -> ctx.telemetry().recovered("sweep", operationId, outcome))
                        .run().then(),
                Permit::releaseAsync, (permit, error) -> permit.releaseAsync(), Permit::releaseAsync);
    }

    /**
     * A pending schema apply is a graph-wide barrier: until a read-write open resolves it, every branch's writers,
     * branch create and branch delete refuse with {@code RecoveryRequired} naming it.
     */
    public Mono<Void> schemaApplyBarrier() {
        return ctx.sidecars().list().filter(sidecar -> sidecar.writerKind() == Sidecar.WriterKind.SchemaApply).next()
                .flatMap(pending -> Mono.error(schemaApplyPending(pending)));
    }

    static RecoveryRequired schemaApplyPending(Sidecar pending) {
        return new RecoveryRequired(pending.operationId(), "a schema apply (operation " + pending.operationId()
                + ") is unfinished; every branch waits for its recovery: reopen the graph read-write", null);
    }

    /** Write entry: heals what can roll forward on {@code branch}; anything else blocks the write. */
    public Mono<Void> heal(String branch) {
        String field = GraphBranches.lanceRef(branch).orElse(null);
        return schemaApplyBarrier().thenMany(ctx.sidecars().list())
                .filter(sidecar -> Objects.equals(sidecar.branch(), field))
                .concatMap(sidecar -> Mono.usingWhen(ctx.gates().forWrite(branch, tableKeys(sidecar)),
                        permit -> recovery.recover(sidecar.operationId(), Mode.ROLL_FORWARD_ONLY),
                        Permit::releaseAsync, (permit, error) -> permit.releaseAsync(), Permit::releaseAsync)
                        .doOnNext(outcome -> ctx.telemetry().recovered("heal", sidecar.operationId(), outcome))
                        .flatMap(outcome -> outcome instanceof Outcome.Deferred deferred
                                ? Mono.error(new RecoveryRequired(sidecar.operationId(), deferred.reason(), null))
                                : Mono.just(outcome)))
                .then();
    }

    /** A writer undoing its own attempt; the caller holds the gates. */
    public Mono<Outcome> compensate(String operationId) {
        return recovery.recover(operationId, Mode.COMPENSATE);
    }

    private static TreeSet<String> tableKeys(Sidecar sidecar) {
        TreeSet<String> keys = new TreeSet<>();
        sidecar.tables().forEach(pin -> keys.add(pin.tableKey()));
        return keys;
    }

}
