package dev.omnigraph.engine.write;

import dev.omnigraph.engine.schema.IndexPlan;
import dev.omnigraph.storage.IndexSpec;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The first step after the token: what each change commits as. One transaction on its pin; a chain when a merge's
 * row delta is too large for one ({@link ChunkChain}); a chain ending in a CreateIndex transaction when the change
 * adds rows to a table lacking an index its schema requires; deferred to a fork made once armed on a first-touch
 * table. Decided before staging, so the sidecar can declare it.
 */
final class EffectPlan {
    private final WriteContext ctx;

    EffectPlan(WriteContext ctx) {
        this.ctx = ctx;
    }

    /**
     * Each change as its table will see it: on its pin, or deferred to a fork made once armed; chained if large, or
     * followed by a CreateIndex transaction when it adds rows to a table lacking an index its schema requires.
     */
    Mono<List<StagedEffect>> planned(WriteToken token, ChangeSet changes) {
        return Flux.fromIterable(changes.changes())
                .concatMap(change -> missingIndexes(change).map(indexes -> {
                    Optional<ChunkChain> chain = ChunkChain.of(change, ctx.limits(), indexes);
                    return FirstTouchFork.inherited(token, change.pin()) ? FirstTouchFork.deferred(token, change, chain)
                            : new StagedEffect(change, null, chain);
                }))
                .collectList();
    }

    /** Changes that add rows keep the schema's indexes existing (an overwrite's image is left to index ensure). */
    private static final java.util.Set<TableChange.Kind> ADDS_ROWS =
            java.util.EnumSet.of(TableChange.Kind.INSERT, TableChange.Kind.APPEND, TableChange.Kind.UPSERT);

    /**
     * A write of at least this many rows to one table also folds them into the table's existing indexes (a delta
     * segment each, in the same trailing transaction), so a bulk load is indexed when it lands. Smaller writes leave
     * that to optimize: a segment per single-row write would cost more than scanning the few rows it covers.
     */
    static final int INDEXED_WRITE_ROWS = 1024;

    /**
     * The indexes {@code change}'s trailing transaction works on (none for other kinds): those its table lacks at its
     * pin that the rows after it require, and, for a write of {@link #INDEXED_WRITE_ROWS} or more rows, the existing
     * ones too (the key index always gets the new fragment, so the transaction always has work).
     */
    private Mono<List<IndexSpec>> missingIndexes(TableChange change) {
        Optional<dev.omnigraph.engine.schema.CatalogTable> table = ctx.catalog().table(change.tableKey());
        if (!ADDS_ROWS.contains(change.kind()) || change.rows().isEmpty() || table.isEmpty()) {
            return Mono.just(List.of());
        }
        long rowsAfter = change.pin().rowCount() + change.rows().size(); // an upsert's replaced rows make it an upper bound
        boolean bulk = change.rows().size() >= INDEXED_WRITE_ROWS;
        return IndexedVersions.of(ctx).at(ctx.tables(), ctx.ref(change.pin()), change.pin().version())
                .map(existing -> (bulk ? IndexPlan.required(table.get(), rowsAfter) : IndexPlan.missing(table.get(), rowsAfter, existing))
                        .stream().filter(spec -> buildableFrom(spec, change.rows())).toList());
    }

    /**
     * The declared index transaction must land, so it works only on what the written rows alone make buildable: text
     * with a value to tokenize (a segment over text that is all NULL has no partition), vectors enough to train every
     * partition (what older rows would add, ensure or optimize builds).
     */
    private static boolean buildableFrom(IndexSpec spec, List<Map<String, Object>> rows) {
        long needed = spec.valuesNeeded();
        return needed == 0 || rows.stream().filter(row -> row.get(spec.column()) != null).limit(needed).count() >= needed;
    }

}
