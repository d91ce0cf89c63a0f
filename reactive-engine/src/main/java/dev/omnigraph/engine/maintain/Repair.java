package dev.omnigraph.engine.maintain;

import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.storage.TableHistory;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.RecoveryRequired;
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
import java.util.OptionalLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code repair}: finds tables whose live HEAD differs from their manifest pin with no sidecar covering them and
 * classifies each from its Lance history between the pin and HEAD. Drift made only of compaction
 * (ReserveFragments/Rewrite: the rows are unchanged) is {@link Kind#VERIFIED_MAINTENANCE} and {@code confirm}
 * publishes it; anything else is {@link Kind#UNVERIFIED} and is published only with {@code force} too. A HEAD
 * behind its pin is never publishable. Repair never writes table data: it only moves pins forward, in one commit
 * per branch by {@link #ACTOR}. It refuses while any sidecar is pending (that state belongs to recovery).
 */
public final class Repair {
    public static final String ACTOR = "omnigraph:repair";
    /** Versions of history read per table at most; longer drift is unverified without reading it. */
    static final int MAX_VERSIONS_READ = 1024;

    public enum Kind { VERIFIED_MAINTENANCE, UNVERIFIED, BEHIND_PIN }

    /** One drifted table: its branch, pin, HEAD, what its history holds, and whether repair published it. */
    public record Drift(String branch, String tableKey, long published, long head, Kind kind, List<String> operations,
                        boolean publishedNow) {
        public Drift {
            operations = List.copyOf(operations);
        }

        boolean publishable(boolean force) {
            return kind == Kind.VERIFIED_MAINTENANCE || (force && kind == Kind.UNVERIFIED);
        }

        Drift done() {
            return new Drift(branch, tableKey, published, head, kind, operations, true);
        }
    }

    private final WriteContext ctx;

    public Repair(WriteContext ctx) {
        this.ctx = ctx;
    }

    /** Previews unless {@code confirm}; {@code force} also publishes unverified drift (only with confirm). */
    public Mono<List<Drift>> run(boolean confirm, boolean force) {
        return Mono.usingWhen(ctx.gates().exclusiveSchema(), permit -> ctx.sidecars().list().next()
                        .flatMap(pending -> Mono.<List<Drift>>error(new Conflict("repair refused: operation "
                                + pending.operationId() + " has a pending recovery sidecar, and repair only handles "
                                + "drift no sidecar covers; " + RecoveryRequired.HOW_TO_RESOLVE)))
                        .switchIfEmpty(Mono.defer(() -> ctx.manifest().branches().flatMapMany(Flux::fromIterable)
                                .concatMap(branch -> repairBranch(branch, confirm, force))
                                .collectList())),
                Permit::releaseAsync, (permit, error) -> permit.releaseAsync(), Permit::releaseAsync);
    }

    private Flux<Drift> repairBranch(BranchIdentity branch, boolean confirm, boolean force) {
        Optional<String> ownRef = GraphBranches.lanceRef(branch.name());
        return ctx.manifest().load(branch.name()).flatMapMany(state -> Flux.fromIterable(state.liveTables())
                .filter(entry -> entry.lanceBranch().equals(ownRef))
                .concatMap(entry -> classify(branch.name(), entry))
                .collectList()
                .flatMapMany(drifted -> {
                    List<Drift> chosen = drifted.stream().filter(drift -> drift.publishable(force)).toList();
                    return confirm && !chosen.isEmpty() ? publish(branch, state, drifted, chosen)
                            : Flux.fromIterable(drifted);
                }));
    }

    private Mono<Drift> classify(String branch, TableEntry entry) {
        TableRef ref = ctx.ref(entry);
        return ctx.tables().head(ref).filter(head -> head != entry.version()).flatMap(head -> {
            if (head < entry.version()) {
                return Mono.just(new Drift(branch, entry.tableKey(), entry.version(), head, Kind.BEHIND_PIN, List.of(), false));
            }
            if (head - entry.version() > MAX_VERSIONS_READ) {
                return Mono.just(new Drift(branch, entry.tableKey(), entry.version(), head, Kind.UNVERIFIED, List.of(), false));
            }
            return ctx.tables().operationsBetween(ref, entry.version(), head).map(operations -> new Drift(branch,
                    entry.tableKey(), entry.version(), head, operations.stream().allMatch(TableHistory::isMaintenance)
                    ? Kind.VERIFIED_MAINTENANCE : Kind.UNVERIFIED, operations, false));
        });
    }

    /** Pins every chosen table at its HEAD in one commit under the branch's exact head. */
    private Flux<Drift> publish(BranchIdentity branch, ManifestState state, List<Drift> drifted, List<Drift> chosen) {
        Map<String, Long> expected = new LinkedHashMap<>();
        List<TableEntry> updates = new ArrayList<>();
        return Flux.fromIterable(chosen)
                .concatMap(drift -> {
                    TableEntry entry = state.table(drift.tableKey()).orElseThrow();
                    return ctx.tables().open(ctx.ref(entry), OptionalLong.of(drift.head())).doOnNext(head -> {
                        expected.put(entry.tableKey(), entry.version());
                        updates.add(entry.pinnedAt(head.version(), entry.lanceBranch(), head.rowCount()));
                    });
                })
                .then(Mono.defer(() -> ctx.publisher().publish(new PublishRequest(branch.name(),
                        new ExpectedHead.Exact(state.head()), Optional.of(branch), expected, updates, Ulid.next(),
                        Optional.empty(), Optional.of(ACTOR), MaintenanceClock.nowMicros(), "repair"))))
                .thenMany(Flux.fromIterable(drifted).map(drift -> chosen.contains(drift) ? drift.done() : drift));
    }
}
