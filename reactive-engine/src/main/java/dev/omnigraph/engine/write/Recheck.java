package dev.omnigraph.engine.write;

import dev.omnigraph.engine.write.PipelineSignals.Reprepare;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.ReadSetChanged;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.TableEntry;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The reads a write makes before its intent: the recovery barrier (step 1) and the recheck under the gates (step 5). */
final class Recheck {
    private final WriteContext ctx;

    Recheck(WriteContext ctx) {
        this.ctx = ctx;
    }

    /**
     * Under the branch gate no healing (it would need it): any sidecar on this branch blocks the write, and so does
     * a pending schema apply on any branch (it is graph-wide: it changes the schema every branch writes with).
     */
    Mono<Void> recoveryBarrier(String branch) {
        String field = GraphBranches.lanceRef(branch).orElse(null);
        return ctx.sidecars().list()
                .filter(sidecar -> java.util.Objects.equals(sidecar.branch(), field)
                        || sidecar.writerKind() == Sidecar.WriterKind.SchemaApply)
                .next()
                .flatMap(pending -> Mono.error(pending.writerKind() == Sidecar.WriterKind.SchemaApply
                        ? RecoveryCoordinator.schemaApplyPending(pending)
                        : new RecoveryRequired(pending.operationId(),
                                "branch " + branch + " has an unfinished " + pending.writerKind() + " write", null)));
    }

    /**
     * Revalidates everything the plan assumed, under the gates and before any effect. In this process nothing can
     * have moved (the plan was made under the branch gate); this catches another process, and sidecar drift. The
     * live manifest version and every written table's HEAD are read side by side (reads only); a moved head is
     * reported before any drift, since the drift of a moved head means nothing.
     */
    Mono<Void> recheck(Publication request, WriteToken token, ChangeSet changes) {
        Mono<Void> noDrift = Flux.fromIterable(changes.changes())
                .filter(change -> !FirstTouchFork.inherited(token, change.pin())) // the parent may move on
                .flatMap(change -> requireNoDrift(change.pin())).then();
        return recoveryBarrier(request.branch())
                .then(Mono.zip(WriteToken.capture(ctx.manifest(), request.branch(), ctx.schemaIrHash()).materialize(),
                        noDrift.materialize()))
                .flatMap(both -> {
                    if (both.getT1().isOnError()) {
                        return Mono.error(both.getT1().getThrowable());
                    }
                    WriteToken fresh = both.getT1().get();
                    ctx.publisher().requireFenced(fresh.state()); // a lost writer tenure stops before any effect
                    DirectPublishPipeline.checkPrecondition(request.ifGraphCommit(), fresh);
                    // A kept token was never read live: its identity is today's, so only the manifest version
                    // proves it is the live state (a branch deleted and created again has the same name and head).
                    boolean keptIsStale = !token.verified()
                            && !token.state().manifest().sameVersionAs(fresh.state().manifest());
                    if (!token.sameAuthority(fresh) || keptIsStale) {
                        ReadSetChanged moved = new ReadSetChanged("graph_head:" + request.branch(),
                                token.head().orElse("<none>"), fresh.head().orElse("<none>"));
                        return Mono.error(changes.reprepareOnMovedHead() || !token.verified()
                                ? new Reprepare(moved, !token.verified()) : moved);
                    }
                    return both.getT2().isOnError() ? Mono.error(both.getT2().getThrowable()) : Mono.<Void>empty();
                });
    }

    /** A table's live HEAD must equal its published pin: anything else is unpublished drift. */
    private Mono<Void> requireNoDrift(TableEntry pin) {
        return ctx.tables().head(ctx.ref(pin)).flatMap(head -> {
            if (head == pin.version()) {
                return Mono.empty();
            }
            if (head > pin.version()) {
                return Mono.error(new Conflict(pin.tableKey() + " has versions past its published pin (HEAD " + head
                        + ", published " + pin.version() + ") that no recovery sidecar covers; " + Conflict.UNCOVERED_DRIFT));
            }
            return Mono.error(new StorageFault(pin.tableKey() + " HEAD " + head + " is below its published pin "
                    + pin.version() + ": the graph root was modified outside omnigraph", null));
        });
    }
}
