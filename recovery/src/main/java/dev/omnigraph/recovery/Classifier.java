package dev.omnigraph.recovery;

import dev.omnigraph.recovery.Sidecar.RollbackRestore;
import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.recovery.Sidecar.Txn;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.BranchIdentity;
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
 * The per-table classification of an exact (protocol v3) sidecar against live state, and the all-or-nothing
 * decision that follows, shared by the one-sidecar recovery and the bulk open-time sweep.
 */
final class Classifier {
    private final TableStorage tables;
    private final TablePaths paths;

    Classifier(TableStorage tables, TablePaths paths) {
        this.tables = tables;
        this.paths = paths;
    }

    /** One pin's class and the HEAD it was read at. */
    record Classified(TableClass kind, long head) {
    }

    /** Every pin of {@code sidecar}, classified in pin order. */
    Mono<Map<TablePin, Classified>> classifyAll(Sidecar sidecar, ManifestState state) {
        return Flux.fromIterable(sidecar.tables())
                .concatMap(pin -> classify(sidecar, pin, state).map(found -> Map.entry(pin, found)))
                .collectList()
                .map(classes -> {
                    Map<TablePin, Classified> byPin = new LinkedHashMap<>();
                    classes.forEach(entry -> byPin.put(entry.getKey(), entry.getValue()));
                    return byPin;
                });
    }

    /**
     * What a rollback does per table: restore the ones with its effect at HEAD, count the ones it already
     * restored, and delete whole the first-touch forks it created (never published, so never restored).
     */
    record Restores(List<TablePin> toRestore, List<TablePin> restored, List<TablePin> forks) {
        boolean none() {
            return toRestore.isEmpty() && restored.isEmpty() && forks.isEmpty();
        }
    }

    static Restores restores(Map<TablePin, Classified> byPin, ManifestState state) {
        List<TablePin> toRestore = new ArrayList<>();
        List<TablePin> restored = new ArrayList<>();
        List<TablePin> forks = new ArrayList<>();
        byPin.forEach((pin, found) -> {
            if (ForkPins.isFork(pin, state)) {
                forks.add(pin);
                return;
            }
            if (found.kind() == TableClass.OWN_AT_HEAD || found.kind() == TableClass.OWN_PREFIX) toRestore.add(pin);
            if (found.kind() == TableClass.OWN_COMPENSATED) restored.add(pin);
        });
        return new Restores(List.copyOf(toRestore), List.copyOf(restored), List.copyOf(forks));
    }

    /** Why the sidecar must be refused (a foreign or impossible table), or empty when recovery may act. */
    static Optional<String> refusal(Map<TablePin, Classified> byPin) {
        for (Map.Entry<TablePin, Classified> entry : byPin.entrySet()) {
            TableClass found = entry.getValue().kind();
            if (found == TableClass.FOREIGN || found == TableClass.INVARIANT_VIOLATION) {
                return Optional.of(entry.getKey().tableKey() + " is " + found + " (HEAD " + entry.getValue().head()
                        + ", expected " + entry.getKey().expectedVersion() + ")");
            }
        }
        return Optional.empty();
    }

    /** Every effect confirmed and exactly at HEAD, under the authority the write captured: roll forward. */
    static boolean canRollForward(Sidecar sidecar, Map<TablePin, Classified> byPin, ManifestState state, BranchIdentity live) {
        boolean allOwnAtHead = !byPin.isEmpty() && byPin.values().stream().allMatch(c -> c.kind() == TableClass.OWN_AT_HEAD);
        boolean confirmed = sidecar.protocolV3().effectPhase() == Sidecar.EffectPhase.EffectsConfirmed;
        return allOwnAtHead && confirmed && authorityHolds(sidecar, state, live);
    }

    private Mono<Classified> classify(Sidecar sidecar, TablePin pin, ManifestState state) {
        TableRef ref = paths.ref(pin);
        long published = state.table(pin.tableKey()).map(TableEntry::version).orElse(0L);
        long expected = pin.expectedVersion();
        if (sidecar.writerKind() == Sidecar.WriterKind.EnsureIndices && planned(sidecar, pin.tableKey()) == null) {
            // An ensure of the previous build (one inline build per index, no transaction named): proven by shape.
            return IndexPins.classify(tables, sidecar, pin, ref, published, ForkPins.isFork(pin, state));
        }
        Optional<Sidecar.Chain> chain = chain(sidecar, pin.tableKey());
        if (chain.isPresent()) {
            return ChainPins.classify(tables, sidecar, pin, ref, chain.get(), published, ForkPins.isFork(pin, state));
        }
        if (ForkPins.isFork(pin, state)) {
            return ForkPins.classify(tables, sidecar, pin, ref, published)
                    .map(found -> new Classified(found.getKey(), found.getValue()));
        }
        Txn planned = planned(sidecar, pin.tableKey());
        if (planned == null) {
            return Mono.error(new StorageFault("sidecar " + sidecar.operationId() + " pins " + pin.tableKey()
                    + " without a planned transaction", null));
        }
        return tables.head(ref).flatMap(head -> {
            if (head < published) return Mono.just(new Classified(TableClass.INVARIANT_VIOLATION, head));
            if (published != expected) return Mono.just(new Classified(TableClass.FOREIGN, head));
            if (head == expected) return Mono.just(new Classified(TableClass.NO_MOVEMENT, head));
            if (head != expected + 1 && head != expected + 2) return Mono.just(new Classified(TableClass.FOREIGN, head));
            return isTransaction(ref, expected + 1, planned).flatMap(ownEffect -> {
                if (!ownEffect) return Mono.just(new Classified(TableClass.FOREIGN, head));
                if (head == expected + 1) return Mono.just(new Classified(TableClass.OWN_AT_HEAD, head));
                Optional<Txn> restore = restoreOf(sidecar, pin.tableKey());
                return restore.isEmpty() ? Mono.just(new Classified(TableClass.FOREIGN, head))
                        : isTransaction(ref, head, restore.get()).map(own -> new Classified(
                                own ? TableClass.OWN_COMPENSATED : TableClass.FOREIGN, head));
            });
        });
    }

    private Mono<Boolean> isTransaction(TableRef ref, long version, Txn expected) {
        return tables.transactionAt(ref, version).map(found -> found
                .map(expected::identifies)
                .orElse(false));
    }

    private static boolean authorityHolds(Sidecar sidecar, ManifestState state, BranchIdentity live) {
        Sidecar.Authority captured = sidecar.protocolV3().authority();
        Sidecar.BranchIdentifier id = captured.branchIdentifier();
        BranchIdentity then = new BranchIdentity(id.name(), Optional.ofNullable(id.parent()), id.parentVersion(), id.createdAt());
        return then.equals(live) && state.head().equals(Optional.ofNullable(captured.graphHead()))
                && schemaHolds(captured, state) && captured.sameTenure(state.writerEpoch());
    }

    /**
     * The schema the write was planned under is still the graph's: the stamp's recorded identity equals the
     * captured one (a root or sidecar from before the identity was recorded has nothing to compare).
     */
    static boolean schemaHolds(Sidecar.Authority captured, ManifestState state) {
        return captured.schemaIrHash() == null || state.schemaIdentity().map(captured.schemaIrHash()::equals).orElse(true);
    }

    private static Txn planned(Sidecar sidecar, String tableKey) {
        return sidecar.protocolV3().effects().stream().filter(effect -> effect.tableKey().equals(tableKey))
                .map(Sidecar.Effect::plannedTransaction).filter(java.util.Objects::nonNull).findFirst().orElse(null);
    }

    private static Optional<Sidecar.Chain> chain(Sidecar sidecar, String tableKey) {
        return sidecar.protocolV3().effects().stream().filter(effect -> effect.tableKey().equals(tableKey))
                .map(Sidecar.Effect::chain).filter(java.util.Objects::nonNull).findFirst();
    }

    static Optional<Txn> restoreOf(Sidecar sidecar, String tableKey) {
        return Optional.ofNullable(sidecar.protocolV3().rollbackRestores()).flatMap(restores -> restores.stream()
                .filter(restore -> restore.tableKey().equals(tableKey)).map(RollbackRestore::restoreTransaction).findFirst());
    }
}
