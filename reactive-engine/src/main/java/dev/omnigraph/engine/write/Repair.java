package dev.omnigraph.engine.write;

import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.manifest.BranchIdentity;
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
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code repair}: finds tables whose live HEAD differs from their manifest pin with no sidecar covering them
 * (versions written outside any tracked write) and, when confirmed, restores each such table to its pin and
 * publishes the restored versions so manifest == HEAD again. Never runs while a sidecar is pending: those states
 * belong to recovery.
 */
public final class Repair {
    public static final String ACTOR = "omnigraph:repair";

    /** One drifted table: its branch, published pin and live HEAD, and whether repair restored it. */
    public record Drift(String branch, String tableKey, long published, long head, boolean restored) {
    }

    private final WriteContext ctx;

    public Repair(WriteContext ctx) {
        this.ctx = ctx;
    }

    public Mono<List<Drift>> run(boolean confirm) {
        return Mono.usingWhen(ctx.gates().exclusiveSchema(), permit -> ctx.sidecars().list().hasElements()
                        .flatMap(pending -> pending
                                ? Mono.error(new Conflict("a recovery sidecar is pending, and repair only handles drift no "
                                        + "sidecar covers; " + dev.omnigraph.storage.error.RecoveryRequired.HOW_TO_RESOLVE))
                                : ctx.manifest().branches().flatMapMany(Flux::fromIterable)
                                        .concatMap(branch -> repairBranch(branch, confirm))
                                        .collectList()),
                Permit::releaseAsync, (permit, error) -> permit.releaseAsync(), Permit::releaseAsync);
    }

    private Flux<Drift> repairBranch(BranchIdentity branch, boolean confirm) {
        Optional<String> ownRef = GraphBranches.lanceRef(branch.name());
        return ctx.manifest().load(branch.name()).flatMapMany(state -> Flux.fromIterable(state.liveTables())
                .filter(entry -> entry.lanceBranch().equals(ownRef))
                .concatMap(entry -> ctx.tables().head(ctx.ref(entry))
                        .filter(head -> head != entry.version())
                        .map(head -> new Drift(branch.name(), entry.tableKey(), entry.version(), head, false)))
                .collectList()
                .flatMapMany(drifted -> confirm && !drifted.isEmpty()
                        ? restore(branch, state, drifted)
                        : Flux.fromIterable(drifted)));
    }

    /** Restores every table that is ahead of its pin, then publishes them in one commit. */
    private Flux<Drift> restore(BranchIdentity branch, ManifestState state, List<Drift> drifted) {
        Map<String, Long> expected = new LinkedHashMap<>();
        List<TableEntry> updates = new ArrayList<>();
        return Flux.fromIterable(drifted)
                .concatMap(drift -> {
                    if (drift.head() < drift.published()) {
                        return Mono.just(drift); // behind its pin: nothing to restore to; reported as is
                    }
                    TableEntry entry = state.table(drift.tableKey()).orElseThrow();
                    TableRef ref = ctx.ref(entry);
                    return ctx.tables().restore(ref, entry.version()).map(restored -> {
                        expected.put(entry.tableKey(), entry.version());
                        updates.add(entry.pinnedAt(restored.version(), entry.lanceBranch(), restored.rowCount()));
                        return new Drift(drift.branch(), drift.tableKey(), drift.published(), drift.head(), true);
                    });
                })
                .collectList()
                .flatMapMany(results -> updates.isEmpty() ? Flux.fromIterable(results)
                        : ctx.publisher().publish(new PublishRequest(branch.name(), new ExpectedHead.Exact(state.head()),
                                        Optional.of(branch), expected, updates, Ulid.next(), Optional.empty(),
                                        Optional.of(ACTOR), DirectPublishPipeline.nowMicros(), "repair"))
                                .thenMany(Flux.fromIterable(results)));
    }
}
