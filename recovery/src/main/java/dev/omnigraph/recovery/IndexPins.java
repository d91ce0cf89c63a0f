package dev.omnigraph.recovery;

import dev.omnigraph.recovery.Classifier.Classified;
import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.recovery.Sidecar.Txn;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.error.NotFound;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The per-table classification of an EnsureIndices sidecar written by the previous build (Lance 0.39), which named
 * no transaction: it built each index inline, one version per index. Today's ensure names one staged CreateIndex
 * transaction per table and is classified exactly, like a data write ({@link Classifier}); this bridge stays so a
 * sidecar left by a crash of the old build is still recovered after an upgrade. An index build committed a version Lance would not
 * describe ({@code readTransaction} aborts the JVM on it), so ownership is proven by shape instead: each version
 * past the pin {@code E} must list exactly the indexes of {@code E} plus the next planned one, in plan order. A
 * data commit never adds an index and a foreign build never carries this intent's next name at that position, so
 * only this intent's own builds pass. A version that lists fewer indexes than the one before it is not an index
 * build, so it may be asked for its transaction: that is how this intent's recorded restore is recognised.
 */
final class IndexPins {
    private IndexPins() {
    }

    static Mono<Classified> classify(TableStorage tables, Sidecar sidecar, TablePin pin, TableRef ref, long published,
                                     boolean fork) {
        long expected = pin.expectedVersion();
        if (published != expected) {
            return Mono.just(new Classified(TableClass.FOREIGN, published));
        }
        List<String> planned = planned(sidecar, pin.tableKey());
        boolean confirmed = sidecar.protocolV3().effectPhase() == Sidecar.EffectPhase.EffectsConfirmed;
        return tables.head(ref)
                .map(Optional::of)
                .onErrorResume(NotFound.class, absent -> fork ? Mono.just(Optional.empty()) : Mono.error(absent))
                .flatMap(found -> {
                    if (found.isEmpty() || found.get() == expected) {
                        return Mono.just(new Classified(TableClass.NO_MOVEMENT, expected));
                    }
                    long head = found.get();
                    if (head < expected) {
                        return Mono.just(new Classified(TableClass.INVARIANT_VIOLATION, head));
                    }
                    return tables.indexNames(ref, expected).flatMap(base -> ownPrefix(tables, ref, expected, head, base, planned)
                            .flatMap(own -> {
                                if (own) {
                                    boolean complete = head == expected + planned.size();
                                    return Mono.just(new Classified(!confirmed || complete
                                            ? TableClass.OWN_AT_HEAD : TableClass.FOREIGN, head));
                                }
                                return compensated(tables, sidecar, pin, ref, head, base, planned)
                                        .map(restored -> new Classified(restored ? TableClass.OWN_COMPENSATED
                                                : TableClass.FOREIGN, head));
                            }));
                });
    }

    /** Versions {@code expected+1 .. upTo} are this intent's first builds, in order. */
    private static Mono<Boolean> ownPrefix(TableStorage tables, TableRef ref, long expected, long upTo, List<String> base,
                                           List<String> planned) {
        int steps = (int) Math.min(Integer.MAX_VALUE, upTo - expected);
        if (steps < 1 || steps > planned.size()) {
            return Mono.just(false);
        }
        return Flux.range(1, steps)
                .concatMap(i -> tables.indexNames(ref, expected + i).map(names -> names.equals(after(base, planned, i))))
                .all(Boolean::booleanValue);
    }

    /**
     * HEAD is the restore this intent recorded: the version before it is an own build, HEAD lists the pin's
     * indexes again (so it is no index build and its transaction may be read), and that transaction is the one
     * recorded.
     */
    private static Mono<Boolean> compensated(TableStorage tables, Sidecar sidecar, TablePin pin, TableRef ref, long head,
                                             List<String> base, List<String> planned) {
        Optional<Txn> restore = Optional.ofNullable(sidecar.protocolV3().rollbackRestores()).flatMap(restores ->
                restores.stream().filter(r -> r.tableKey().equals(pin.tableKey()))
                        .map(Sidecar.RollbackRestore::restoreTransaction).findFirst());
        if (restore.isEmpty() || head - 1 <= pin.expectedVersion()) {
            return Mono.just(false);
        }
        return ownPrefix(tables, ref, pin.expectedVersion(), head - 1, base, planned)
                .flatMap(own -> !own ? Mono.just(false) : tables.indexNames(ref, head).flatMap(names -> !names.equals(base)
                        ? Mono.just(false)
                        : tables.transactionAt(ref, head).map(found -> found.map(restore.get()::identifies).orElse(false))));
    }

    private static List<String> after(List<String> base, List<String> planned, int builds) {
        TreeSet<String> names = new TreeSet<>(base);
        names.addAll(planned.subList(0, builds));
        return new ArrayList<>(names);
    }

    private static List<String> planned(Sidecar sidecar, String tableKey) {
        return sidecar.protocolV3().effects().stream().filter(effect -> effect.tableKey().equals(tableKey))
                .map(Sidecar.Effect::indexes).filter(java.util.Objects::nonNull).findFirst().orElse(List.of());
    }
}
