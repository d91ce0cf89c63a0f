package dev.omnigraph.engine.mutation;

import dev.omnigraph.engine.query.BoundParams;
import dev.omnigraph.engine.query.MutationPlan;
import dev.omnigraph.engine.query.MutationPlan.Delete;
import dev.omnigraph.engine.query.MutationPlan.Insert;
import dev.omnigraph.engine.query.MutationPlan.Statement;
import dev.omnigraph.engine.query.MutationPlan.Update;
import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.Property;
import dev.omnigraph.engine.write.ChangeSet;
import dev.omnigraph.engine.write.CommittedRows;
import dev.omnigraph.engine.write.TableChange;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.manifest.TableEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Executes a mutation's statements in order into per-table pending changes, without touching storage state.
 * Read-your-writes: a statement's reads see committed rows at the token's pins unioned with the rows earlier
 * statements made pending (pending rows shadow committed ones by id, deleted ids are gone). At the end each
 * touched table becomes ONE {@link TableChange}.
 */
final class MutationStaging {
    private final Catalog catalog;
    private final Map<String, TableEntry> pins;
    private final CommittedRows committed;
    private final BoundParams params;
    private final Instant now;
    /** Table key → pending rows by id (insertion order kept, last write wins). */
    private final Map<String, LinkedHashMap<String, Map<String, Object>>> pending = new LinkedHashMap<>();
    private final Map<String, Set<String>> deleted = new LinkedHashMap<>();
    /** Tables whose pending rows replace existing ones (updates, keyed inserts of held keys) rather than only adding new ids. */
    private final Set<String> upserting = new java.util.HashSet<>();
    /** Tables with keyed inserts: upserts by their derived ids unless those are proven new ({@link #keyedAsAppends}). */
    private final Set<String> keyed = new LinkedHashSet<>();
    /** Table key → rows each statement wrote, summed over statements (as upstream: insert + update of one row = 2). */
    private final Map<String, Long> affected = new LinkedHashMap<>();

    MutationStaging(Catalog catalog, Map<String, TableEntry> pins, CommittedRows committed, BoundParams params, Instant now) {
        this.catalog = catalog;
        this.pins = pins;
        this.committed = committed;
        this.params = params;
        this.now = now;
    }

    /**
     * Starts from the rows of the writes ordered before this one in its group (a constructive union), so this
     * mutation reads and validates them as if they had committed; its counts stay its own.
     */
    MutationStaging after(ChangeSet before) {
        for (TableChange change : before.changes()) {
            if (change.kind() != TableChange.Kind.INSERT && change.kind() != TableChange.Kind.UPSERT) {
                throw new IllegalArgumentException("a group shares only inserts and upserts, not " + change.kind());
            }
            LinkedHashMap<String, Map<String, Object>> rows = pending.computeIfAbsent(change.tableKey(),
                    key -> new LinkedHashMap<>());
            change.rows().forEach(row -> rows.put((String) row.get("id"), row));
            if (change.kind() == TableChange.Kind.UPSERT) {
                upserting.add(change.tableKey());
            }
        }
        return this;
    }

    Mono<ChangeSet> run(MutationPlan plan) {
        return Flux.fromIterable(plan.statements())
                .concatMap(this::apply)
                .then(Mono.defer(this::keyedAsAppends))
                .then(Mono.fromSupplier(() -> toChangeSet(plan)));
    }

    /**
     * A keyed insert replaces the committed row holding its key. When the handle's kept key set proves that no
     * pending id of the table is committed at the pin, there is nothing to replace: the rows are staged as a plain
     * append, which skips the upsert's key scan. Anything else (an update or delete of the table in this mutation,
     * a held key, a set nobody knows) stays an upsert.
     */
    private Mono<Void> keyedAsAppends() {
        return Flux.fromIterable(keyed)
                .filter(tableKey -> !upserting.contains(tableKey))
                .concatMap(tableKey -> (deleted.containsKey(tableKey) ? Mono.just(false)
                        : committed.provenAbsent(pins.get(tableKey), pending.get(tableKey).keySet()))
                        .doOnNext(absent -> {
                            if (!absent) upserting.add(tableKey);
                        }))
                .then();
    }

    private Mono<Void> apply(Statement statement) {
        if (statement instanceof Insert insert) {
            return Mono.fromRunnable(() -> insert(insert));
        }
        if (statement instanceof Update update) {
            return update(update);
        }
        return delete((Delete) statement);
    }

    private void insert(Insert insert) {
        CatalogTable table = insert.table();
        Map<String, Object> row = emptyRow(table);
        row.putAll(insert.resolve(params, now));
        String id;
        if (table instanceof NodeTable node && node.type().key().isPresent()) {
            id = node.deriveId(row);
            keyed.add(table.tableKey()); // an upsert by its derived id, unless proven new
        } else {
            id = Ulid.next();
        }
        row.put("id", id);
        pendingOf(table).put(id, row);
        count(table, 1);
    }

    private Mono<Void> update(Update update) {
        NodeTable table = update.table();
        Map<String, Object> assignments = update.resolve(params, now);
        return matching(table, predicate(table, update.where())).doOnNext(row -> {
            Map<String, Object> changed = new HashMap<>(row);
            changed.putAll(assignments);
            pendingOf(table).put((String) changed.get("id"), changed);
            upserting.add(table.tableKey());
            count(table, 1);
        }).then();
    }

    private Mono<Void> delete(Delete delete) {
        CatalogTable table = delete.table();
        return matching(table, predicate(table, delete.where()))
                .map(row -> (String) row.get("id"))
                .collectList()
                .flatMap(ids -> {
                    markDeleted(table, ids);
                    return table instanceof NodeTable node ? cascade(node, ids) : Mono.<Void>empty();
                });
    }

    /** Deleting nodes deletes every incident edge, of every edge type, in the same commit. */
    private Mono<Void> cascade(NodeTable node, List<String> nodeIds) {
        if (nodeIds.isEmpty()) {
            return Mono.empty();
        }
        String typeName = node.type().name();
        return Flux.fromIterable(catalog.edges().values())
                .filter(edge -> edge.type().fromType().equals(typeName) || edge.type().toType().equals(typeName))
                .concatMap(edge -> {
                    Flux<Map<String, Object>> bySrc = edge.type().fromType().equals(typeName)
                            ? committed.whereIn(pin(edge), "src", nodeIds, List.of("id")) : Flux.empty();
                    Flux<Map<String, Object>> byDst = edge.type().toType().equals(typeName)
                            ? committed.whereIn(pin(edge), "dst", nodeIds, List.of("id")) : Flux.empty();
                    return Flux.concat(bySrc, byDst).map(row -> (String) row.get("id")).collectList()
                            .doOnNext(ids -> markDeleted(edge, ids));
                })
                .then();
    }

    /** Committed rows matching at the pin (minus deleted and shadowed ids), then pending rows matching. */
    private Flux<Map<String, Object>> matching(CatalogTable table, RowPredicate predicate) {
        LinkedHashMap<String, Map<String, Object>> mine = pending.getOrDefault(table.tableKey(), new LinkedHashMap<>());
        Set<String> gone = deleted.getOrDefault(table.tableKey(), Set.of());
        Flux<Map<String, Object>> fromStorage = predicate.sql()
                .map(sql -> committed.where(pin(table), sql, List.of()))
                .orElseGet(() -> committed.where(pin(table), "", List.of()).filter(predicate::matches))
                .filter(row -> !gone.contains((String) row.get("id")) && !mine.containsKey((String) row.get("id")));
        Flux<Map<String, Object>> fromPending = Flux.defer(() -> Flux.fromIterable(new ArrayList<>(mine.values()))
                .filter(predicate::matches));
        return Flux.concat(fromStorage, fromPending);
    }

    private RowPredicate predicate(CatalogTable table, MutationPlan.Predicate where) {
        Object value = where.resolve(table, params, now);
        return new RowPredicate(where.property(), where.op(), value, MutationPlan.slot(table, where.property()).type());
    }

    private ChangeSet toChangeSet(MutationPlan plan) {
        List<TableChange> changes = new ArrayList<>();
        for (Map.Entry<String, Set<String>> entry : deleted.entrySet()) {
            if (entry.getValue().isEmpty()) continue;
            changes.add(new TableChange(pins.get(entry.getKey()), TableChange.Kind.DELETE, List.of(),
                    new ArrayList<>(entry.getValue())));
        }
        for (Map.Entry<String, LinkedHashMap<String, Map<String, Object>>> entry : pending.entrySet()) {
            if (entry.getValue().isEmpty()) continue;
            TableChange.Kind kind = upserting.contains(entry.getKey()) ? TableChange.Kind.UPSERT : TableChange.Kind.INSERT;
            changes.add(new TableChange(pins.get(entry.getKey()), kind, new ArrayList<>(entry.getValue().values()), List.of()));
        }
        boolean insertOnly = plan.statements().stream().allMatch(Insert.class::isInstance);
        return ChangeSet.counted(changes, affected, insertOnly);
    }

    /** Marks ids deleted, counting those not already deleted by an earlier statement or cascade. */
    private void markDeleted(CatalogTable table, List<String> ids) {
        Set<String> gone = deleted.computeIfAbsent(table.tableKey(), key -> new LinkedHashSet<>());
        ids.forEach(id -> {
            if (gone.add(id)) count(table, 1);
        });
    }

    private void count(CatalogTable table, long rows) {
        affected.merge(table.tableKey(), rows, Long::sum);
    }

    private LinkedHashMap<String, Map<String, Object>> pendingOf(CatalogTable table) {
        return pending.computeIfAbsent(table.tableKey(), key -> new LinkedHashMap<>());
    }

    /** Every declared column present (absent nullable properties are null), so an upsert replaces whole rows. */
    private static Map<String, Object> emptyRow(CatalogTable table) {
        Map<String, Object> row = new HashMap<>();
        List<Property> properties = table instanceof NodeTable node ? node.type().properties()
                : ((EdgeTable) table).type().properties();
        properties.forEach(property -> row.put(property.name(), null));
        return row;
    }

    private TableEntry pin(CatalogTable table) {
        TableEntry entry = pins.get(table.tableKey());
        if (entry == null) {
            throw new IllegalStateException("no manifest pin for " + table.tableKey());
        }
        return entry;
    }

}
