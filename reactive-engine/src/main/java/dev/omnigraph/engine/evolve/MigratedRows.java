package dev.omnigraph.engine.evolve;

import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.write.ChangeSet;
import dev.omnigraph.engine.write.ChangeValidator;
import dev.omnigraph.engine.write.CommittedRows;
import dev.omnigraph.engine.write.TableChange;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.ValidationError;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The existing rows a plan must rewrite or re-check, read at their published pins, migrated to the target
 * layout and validated against the target schema's rules before any effect. A violation is a {@code conflict}
 * naming the offending type, property and id; nothing has changed at that point.
 */
final class MigratedRows {
    private final WriteContext ctx;
    private final SchemaPlan plan;
    private final ManifestState state;

    MigratedRows(WriteContext ctx, SchemaPlan plan, ManifestState state) {
        this.ctx = ctx;
        this.plan = plan;
        this.state = state;
    }

    /** Accepted table key → its rows in the target layout. */
    Mono<Map<String, List<Map<String, Object>>>> load() {
        CommittedRows committed = new CommittedRows(ctx);
        Map<String, List<Map<String, Object>>> byKey = new java.util.concurrent.ConcurrentHashMap<>();
        return Flux.fromIterable(plan.readsRows())
                .concatMap(migration -> committed.where(pin(migration.acceptedKey()), "", List.of())
                        .map(migration::migrate).collectList()
                        .doOnNext(rows -> byKey.put(migration.acceptedKey(), rows)))
                .then(Mono.defer(() -> validate(byKey)))
                .thenReturn(byKey);
    }

    private Mono<Void> validate(Map<String, List<Map<String, Object>>> byKey) {
        if (byKey.isEmpty()) {
            return Mono.empty();
        }
        Map<String, TableEntry> pins = new HashMap<>();
        List<TableChange> changes = new ArrayList<>();
        Map<String, Long> counts = new LinkedHashMap<>();
        for (TableMigration migration : plan.migrations()) {
            CatalogTable target = migration.target();
            TableEntry pin = pin(migration.acceptedKey());
            TableEntry renamed = new TableEntry(target.tableKey(), pin.stableTableId(), pin.incarnationId(),
                    pin.location(), pin.version(), pin.lanceBranch(), pin.rowCount(), false);
            pins.put(target.tableKey(), renamed);
            List<Map<String, Object>> rows = byKey.get(migration.acceptedKey());
            if (rows != null) {
                changes.add(new TableChange(renamed, TableChange.Kind.OVERWRITE, rows, List.of()));
                counts.put(target.tableKey(), (long) rows.size());
            }
        }
        return new ChangeValidator(plan.target().catalog(), pins, new CommittedRows(ctx))
                .validate(ChangeSet.counted(changes, counts, false))
                .then()
                .onErrorMap(ValidationError.class, violation -> new Conflict("existing data violates the new schema, "
                        + "nothing was changed: " + violation.getMessage() + " (offending id: " + violation.entityId() + ")"));
    }

    private TableEntry pin(String acceptedKey) {
        return state.table(acceptedKey).orElseThrow(() -> new IllegalStateException("no manifest pin for " + acceptedKey));
    }
}
