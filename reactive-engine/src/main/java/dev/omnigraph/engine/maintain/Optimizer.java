package dev.omnigraph.engine.maintain;

import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.engine.maintain.OptimizeResult.Compacted;
import dev.omnigraph.engine.maintain.OptimizeResult.SkippedDrift;
import dev.omnigraph.engine.write.RecoveryCoordinator;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.ExpectedHead;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.PublishRequest;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeSet;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code optimize}: compacts main's tables (small fragments folded, deleted rows materialised) as one tracked
 * maintenance write. Under main's branch gate and every table's gate it refuses pending recovery, skips tables
 * whose HEAD is not their pin (uncovered drift, reported), plans each remaining table (tables with nothing to
 * compact are left alone), and when anything is left: arms one Optimize sidecar naming, per table, the pin it
 * starts from and the last version its compaction lands ({@code pin + tasks + 1}: one ReserveFragments version per
 * task, then the Rewrite); compacts table by table; publishes every new version in one commit; deletes the sidecar.
 * A failure after arming is compensated by recovery, which publishes whatever compaction landed (it never changes
 * rows); a crash leaves the sidecar for the next open or write to do the same.
 */
public final class Optimizer {
    public static final String ACTOR = "omnigraph:optimize";
    public static final String WRITER = "optimize";

    private final WriteContext ctx;

    public Optimizer(WriteContext ctx) {
        this.ctx = ctx;
    }

    /** One table to compact: its pin and how many rewrite tasks Lance planned. */
    private record Planned(TableEntry pin, int tasks, int fragments) {
        long lastVersion() {
            return pin.version() + tasks + 1;
        }
    }

    public Mono<OptimizeResult> run(Optional<String> actor) {
        return ctx.manifest().load(GraphBranches.MAIN).flatMap(probe -> {
            TreeSet<String> keys = new TreeSet<>();
            probe.liveTables().forEach(entry -> keys.add(entry.tableKey()));
            return Mono.usingWhen(ctx.gates().forWrite(GraphBranches.MAIN, keys), permit -> underGates(keys, actor),
                    Permit::releaseAsync, (permit, error) -> permit.releaseAsync(), Permit::releaseAsync);
        });
    }

    private Mono<OptimizeResult> underGates(java.util.Set<String> gated, Optional<String> actor) {
        return ctx.sidecars().list().next().flatMap(pending -> Mono.<ManifestState>error(new RecoveryRequired(
                        pending.operationId(), "optimize refused: a write's recovery is pending", null)))
                .switchIfEmpty(Mono.defer(() -> ctx.manifest().load(GraphBranches.MAIN)))
                .flatMap(state -> {
                    List<SkippedDrift> skipped = new ArrayList<>();
                    return Flux.fromIterable(state.liveTables())
                            // Main's own tables, and only those gated (a schema apply may have added one since).
                            .filter(entry -> entry.lanceBranch().isEmpty() && gated.contains(entry.tableKey()))
                            .concatMap(entry -> plan(entry, skipped))
                            .collectList()
                            .flatMap(planned -> ctx.failpoints().hit(WRITER + ".after_plan").then(Mono.defer(() -> {
                                List<Planned> work = planned.stream().filter(p -> p.tasks() > 0).toList();
                                int compact = planned.size() - work.size();
                                return work.isEmpty()
                                        ? Mono.just(new OptimizeResult(List.of(), skipped, compact, Optional.empty()))
                                        : compactAll(state, work, actor).map(done -> new OptimizeResult(done.compacted(),
                                                skipped, compact, Optional.of(done.commitId())));
                            })));
                });
    }

    private Mono<Planned> plan(TableEntry entry, List<SkippedDrift> skipped) {
        TableRef ref = ctx.ref(entry);
        return ctx.tables().open(ref, OptionalLong.empty()).flatMap(head -> {
            if (head.version() != entry.version()) {
                skipped.add(new SkippedDrift(entry.tableKey(), entry.version(), head.version()));
                return Mono.empty();
            }
            return ctx.tables().compactionTasks(ref).map(tasks -> new Planned(entry, tasks, head.fragmentCount()));
        });
    }

    private record Done(List<Compacted> compacted, String commitId) {
    }

    private Mono<Done> compactAll(ManifestState state, List<Planned> work, Optional<String> actor) {
        String operationId = Ulid.next();
        String commitId = Ulid.next();
        Sidecar armed = intent(operationId, work, actor);
        List<Compacted> compacted = new ArrayList<>();
        Mono<Done> effects = Flux.range(0, work.size())
                .concatMap(i -> compact(work.get(i)).doOnNext(compacted::add)
                        .then(ctx.failpoints().hit(WRITER + ".after_compact:" + (i + 1))))
                .then(Mono.defer(() -> publish(state, compacted, commitId, actor)))
                .then(ctx.failpoints().hit(WRITER + ".after_publish"))
                .then(ctx.failpoints().hit(WRITER + ".before_sidecar_delete"))
                .then(ctx.sidecars().delete(operationId)
                        .onErrorResume(error -> Mono.just(false))) // the next heal or open finalizes it
                .then(Mono.fromSupplier(() -> new Done(List.copyOf(compacted), commitId)));
        return ctx.sidecars().write(armed)
                .then(ctx.failpoints().hit(WRITER + ".after_arm"))
                .then(effects.onErrorResume(error -> compensate(operationId, error)));
    }

    /** Recovery publishes whatever compaction landed; if even that fails, the sidecar stays for the next open. */
    private <T> Mono<T> compensate(String operationId, Throwable error) {
        return new RecoveryCoordinator(ctx).compensate(operationId)
                .onErrorResume(failed -> {
                    error.addSuppressed(failed);
                    return Mono.error(new RecoveryRequired(operationId, "optimize failed after it started compacting ("
                            + error.getMessage() + ") and could not publish what it compacted", error));
                })
                .then(Mono.error(error));
    }

    private Mono<Compacted> compact(Planned planned) {
        TableRef ref = ctx.ref(planned.pin());
        return ctx.tables().compactFragments(ref).flatMap(landed -> {
            long version = landed.orElse(planned.pin().version());
            if (version != planned.lastVersion()) {
                return Mono.error(new StorageFault(planned.pin().tableKey() + " compaction landed at version " + version
                        + ", expected " + planned.lastVersion() + ": another writer committed to it meanwhile", null));
            }
            return ctx.tables().open(ref, OptionalLong.of(version)).map(after -> new Compacted(planned.pin().tableKey(),
                    planned.pin().version(), version, planned.fragments(), after.fragmentCount()));
        });
    }

    private Mono<Void> publish(ManifestState state, List<Compacted> compacted, String commitId, Optional<String> actor) {
        Map<String, Long> expected = new LinkedHashMap<>();
        List<TableEntry> updates = new ArrayList<>();
        for (Compacted table : compacted) {
            TableEntry pin = state.table(table.tableKey()).orElseThrow();
            expected.put(pin.tableKey(), pin.version());
            updates.add(pin.pinnedAt(table.toVersion(), pin.lanceBranch(), pin.rowCount())); // rows never change
        }
        return ctx.manifest().branchIdentity(GraphBranches.MAIN)
                .flatMap(identity -> ctx.publisher().publish(new PublishRequest(GraphBranches.MAIN, ExpectedHead.any(),
                        Optional.of(identity), expected, updates, commitId, Optional.empty(),
                        Optional.of(actor.orElse(ACTOR)), MaintenanceClock.nowMicros(), WRITER)))
                .then();
    }

    private Sidecar intent(String operationId, List<Planned> work, Optional<String> actor) {
        List<Sidecar.TablePin> pins = work.stream().map(planned -> {
            TableEntry pin = planned.pin();
            return new Sidecar.TablePin(new Sidecar.Identity(pin.stableTableId(), pin.incarnationId()), pin.tableKey(),
                    ctx.ref(pin).path(), pin.version(), planned.lastVersion(), null, null);
        }).toList();
        return new Sidecar(Sidecar.SCHEMA_VERSION, operationId, Long.toString(MaintenanceClock.nowMicros()), null,
                actor.orElse(ACTOR), Sidecar.WriterKind.Optimize, pins, null);
    }
}
