package dev.omnigraph.engine.write;

import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.error.StorageFault;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * When a write's sidecar can be armed beside staging instead of after it. Lance mints a transaction's uuid only
 * once its files are written, so an early arm names each planned transaction by its read version (the pin) and the
 * intent id (the operation id) staging stores as a transaction property ({@link Sidecar.Txn#planned}); recovery
 * matches either ({@link Sidecar.Txn#identifies}). That needs every change to stage exactly one transaction on its
 * pin: inserts, upserts and overwrites do; a delete or a merge's row delta may stage nothing, and a merge's chain
 * is declared chunk by chunk, so those keep arming after staging.
 */
final class ArmBesideStaging {
    private static final Set<TableChange.Kind> ONE_TRANSACTION_EACH =
            EnumSet.of(TableChange.Kind.INSERT, TableChange.Kind.UPSERT, TableChange.Kind.OVERWRITE);

    private ArmBesideStaging() {
    }

    static boolean applies(ChangeSet changes, List<StagedEffect> planned) {
        return !changes.changes().isEmpty()
                && changes.changes().stream().allMatch(change -> ONE_TRANSACTION_EACH.contains(change.kind()))
                && planned.stream().allMatch(effect -> effect.chain().isEmpty()); // an index build follows: a chain
    }

    /** Fails (before any effect) unless every staged transaction is the one the armed sidecar names. */
    static Mono<Void> verify(Sidecar armed, List<StagedEffect> effects) {
        for (StagedEffect effect : effects) {
            if (FirstTouchFork.isDeferred(effect)) {
                continue; // staged on its fork after the arm; the sidecar names no transaction for it
            }
            Sidecar.Txn planned = armed.protocolV3().effects().stream()
                    .filter(named -> named.tableKey().equals(effect.change().tableKey()))
                    .map(Sidecar.Effect::plannedTransaction).findFirst().orElse(null);
            if (planned == null || !planned.identifies(effect.handle().identity())) {
                return Mono.error(new StorageFault(effect.change().tableKey() + " staged " + effect.handle().identity()
                        + ", not the transaction its sidecar names (" + planned + ")", null));
            }
        }
        return Mono.empty();
    }
}
