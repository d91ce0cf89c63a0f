package dev.omnigraph.engine.evolve;

import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.TransactionIdentity;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.manifest.ManifestSchema;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What an interrupted schema apply owns on each table it named, proved by transaction identity against live state
 * before recovery moves anything (the v7 rule): an existing table's overwrite is its own only when the version after
 * its pin carries exactly the planned transaction (and, one later, the restore recovery recorded before running it);
 * a new type's dataset is its own only as an exact version-one create (read version 0) at the path it minted. Any
 * other history is foreign or buried, and recovery fails closed on it rather than restoring through it or adopting it.
 */
final class SchemaEffects {
    /** One table's class and the HEAD it was read at (-1: no dataset at the path). */
    record Found(Kind kind, long head) {
    }

    enum Kind {
        /** Nothing of this apply landed here. */
        NO_MOVEMENT,
        /** The planned overwrite (or the version-one create) is HEAD. */
        OWN_AT_HEAD,
        /** The planned overwrite, then the restore this recovery recorded, is HEAD. */
        OWN_COMPENSATED,
        /** Versions this apply did not make, or a pin the manifest moved since: never adopted or restored through. */
        FOREIGN,
        /** HEAD behind the published pin. */
        INVARIANT_VIOLATION
    }

    private final TableStorage tables;
    private final Function<TablePin, TableRef> refs;

    SchemaEffects(TableStorage tables, Function<TablePin, TableRef> refs) {
        this.tables = tables;
        this.refs = refs;
    }

    /** Every pin of {@code sidecar}, classified against {@code state} (main's live manifest), in pin order. */
    Mono<Map<TablePin, Found>> classify(Sidecar sidecar, ManifestState state) {
        return Flux.fromIterable(sidecar.tables())
                .concatMap(pin -> classify(sidecar, pin, state).map(found -> Map.entry(pin, found)))
                .collectList()
                .map(entries -> {
                    Map<TablePin, Found> out = new LinkedHashMap<>();
                    entries.forEach(entry -> out.put(entry.getKey(), entry.getValue()));
                    return out;
                });
    }

    /** Why recovery must refuse, or empty when every table is this apply's or untouched. */
    static Optional<String> refusal(Map<TablePin, Found> byPin) {
        return byPin.entrySet().stream()
                .filter(e -> e.getValue().kind() == Kind.FOREIGN || e.getValue().kind() == Kind.INVARIANT_VIOLATION)
                .findFirst()
                .map(e -> e.getKey().tableKey() + " is " + e.getValue().kind() + " (HEAD " + e.getValue().head()
                        + ", expected " + e.getKey().expectedVersion() + ")");
    }

    private Mono<Found> classify(Sidecar sidecar, TablePin pin, ManifestState state) {
        TableRef ref = refs.apply(pin);
        Mono<Long> head = tables.head(ref).onErrorResume(NotFound.class, absent -> Mono.just(-1L));
        if (pin.expectedVersion() == 0) {
            // A create: absent, or exactly version one made from nothing.
            return head.flatMap(at -> at <= 0 ? Mono.just(new Found(Kind.NO_MOVEMENT, at))
                    : at != 1 ? Mono.just(new Found(Kind.FOREIGN, at))
                    : tables.transactionAt(ref, 1).map(txn -> new Found(txn.map(TransactionIdentity::readVersion)
                            .filter(read -> read == 0).isPresent() ? Kind.OWN_AT_HEAD : Kind.FOREIGN, at)));
        }
        long expected = pin.expectedVersion();
        Optional<TableEntry> published = state.liveTables().stream().filter(entry -> entry.objectId().equals(
                ManifestSchema.tableObjectId(pin.identity().stableTableId(), pin.identity().tableIncarnationId()))).findFirst();
        Sidecar.Txn planned = planned(sidecar, pin.tableKey());
        return head.flatMap(at -> {
            long pinned = published.map(TableEntry::version).orElse(-1L);
            if (at < pinned) return Mono.just(new Found(Kind.INVARIANT_VIOLATION, at));
            if (pinned != expected || planned == null) return Mono.just(new Found(Kind.FOREIGN, at));
            if (at == expected) return Mono.just(new Found(Kind.NO_MOVEMENT, at));
            if (at != expected + 1 && at != expected + 2) return Mono.just(new Found(Kind.FOREIGN, at));
            return is(ref, expected + 1, planned).flatMap(own -> {
                if (!own) return Mono.just(new Found(Kind.FOREIGN, at));
                if (at == expected + 1) return Mono.just(new Found(Kind.OWN_AT_HEAD, at));
                Optional<Sidecar.Txn> restore = restoreOf(sidecar, pin.tableKey());
                return restore.isEmpty() ? Mono.just(new Found(Kind.FOREIGN, at))
                        : is(ref, at, restore.get()).map(mine -> new Found(mine ? Kind.OWN_COMPENSATED : Kind.FOREIGN, at));
            });
        });
    }

    private Mono<Boolean> is(TableRef ref, long version, Sidecar.Txn expected) {
        return tables.transactionAt(ref, version).map(found -> found.map(expected::identifies).orElse(false));
    }

    private static Sidecar.Txn planned(Sidecar sidecar, String tableKey) {
        return sidecar.protocolV3().effects().stream().filter(effect -> effect.tableKey().equals(tableKey))
                .map(Sidecar.Effect::plannedTransaction).filter(java.util.Objects::nonNull).findFirst().orElse(null);
    }

    static Optional<Sidecar.Txn> restoreOf(Sidecar sidecar, String tableKey) {
        return Optional.ofNullable(sidecar.protocolV3().rollbackRestores()).flatMap(restores -> restores.stream()
                .filter(restore -> restore.tableKey().equals(tableKey))
                .map(Sidecar.RollbackRestore::restoreTransaction).findFirst());
    }
}
