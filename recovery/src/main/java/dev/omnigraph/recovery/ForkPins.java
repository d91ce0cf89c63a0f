package dev.omnigraph.recovery;

import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.recovery.Sidecar.Txn;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.manifest.ManifestState;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Pins of a first-touch fork: the write created the table's ref for its graph branch itself, after arming, so
 * the manifest still publishes the table through the parent's ref. The ref is owned by the intent from birth:
 * rolling back removes it whole (nothing published ever pointed at it); rolling forward publishes it.
 * The fork's first version is a Lance Clone, whose transaction must never be read (it aborts the JVM), so
 * ownership of the next version is proven by the recorded transaction when there is one, else by construction.
 */
final class ForkPins {
    private ForkPins() {
    }

    /** True when the published entry reads {@code pin}'s table through another ref than the one it writes. */
    static boolean isFork(TablePin pin, ManifestState state) {
        return state.table(pin.tableKey())
                .map(entry -> !Objects.equals(entry.lanceBranch().orElse(null), pin.tableBranch()))
                .orElse(false);
    }

    /**
     * Absent ref or untouched fork → no movement; exactly one own version past the fork point → own effect at
     * HEAD; anything else (or a published pin that moved) → foreign.
     */
    static Mono<Map.Entry<TableClass, Long>> classify(TableStorage tables, Sidecar sidecar, TablePin pin, TableRef ref,
                                                      long published) {
        long expected = pin.expectedVersion();
        if (published != expected) {
            return Mono.just(Map.entry(TableClass.FOREIGN, published));
        }
        return tables.head(ref)
                .map(Optional::of)
                .onErrorResume(NotFound.class, absent -> Mono.just(Optional.empty()))
                .flatMap(head -> {
                    if (head.isEmpty() || head.get() == expected) {
                        return Mono.just(Map.entry(TableClass.NO_MOVEMENT, expected));
                    }
                    if (head.get() != expected + 1) {
                        return Mono.just(Map.entry(TableClass.FOREIGN, head.get()));
                    }
                    Optional<Txn> recorded = recorded(sidecar, pin.tableKey());
                    if (recorded.isEmpty()) {
                        return Mono.just(Map.entry(TableClass.OWN_AT_HEAD, head.get()));
                    }
                    return tables.transactionAt(ref, expected + 1).map(found -> Map.entry(found
                            .filter(recorded.get()::identifies)
                            .isPresent() ? TableClass.OWN_AT_HEAD : TableClass.FOREIGN, head.get()));
                });
    }

    /** Deletes each fork ref (a table branch) that exists; an absent one is already gone. */
    static Mono<Void> reclaim(TableStorage tables, List<TableRef> forks) {
        return Flux.fromIterable(forks)
                .concatMap(ref -> tables.deleteBranch(ref.path(), ref.branch().orElseThrow())
                        .onErrorResume(NotFound.class, absent -> Mono.empty()))
                .then();
    }

    private static Optional<Txn> recorded(Sidecar sidecar, String tableKey) {
        return sidecar.protocolV3().effects().stream().filter(effect -> effect.tableKey().equals(tableKey)).findFirst()
                .flatMap(effect -> Optional.ofNullable(effect.confirmedTransaction())
                        .or(() -> Optional.ofNullable(effect.plannedTransaction())));
    }
}
