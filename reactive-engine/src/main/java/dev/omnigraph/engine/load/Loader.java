package dev.omnigraph.engine.load;

import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.write.ChangeSet;
import dev.omnigraph.engine.write.ChangeValidator;
import dev.omnigraph.engine.write.CommittedKeyCache;
import dev.omnigraph.engine.write.CommittedRows;
import dev.omnigraph.engine.write.DirectPublishPipeline;
import dev.omnigraph.engine.write.IdempotentRequest;
import dev.omnigraph.engine.write.TableChange;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.engine.write.WriteToken;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.KeyConflict;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Bulk loads: one NDJSON input becomes one graph commit through the direct-publish pipeline (sidecar kind
 * {@code Load}, failpoints {@code load.*}). The input is read and checked once; planning against the token —
 * key-conflict preflight and the schema's rules — runs again if an append/merge meets a moved head.
 */
public final class Loader {
    private final WriteContext ctx;
    private final DirectPublishPipeline pipeline;
    private final CommittedKeyCache keys;

    public Loader(WriteContext ctx) {
        this.ctx = ctx;
        this.pipeline = new DirectPublishPipeline(ctx);
        this.keys = CommittedKeyCache.of(ctx);
    }

    /**
     * Loads {@code records} into {@code branch}. {@code overwriteTypes} names types an OVERWRITE replaces even when
     * the input holds none of their records (they become empty). {@code idempotency} is asked for once the input
     * has been read whole (a load's request hash covers its bytes, hashed as they stream).
     */
    public Mono<WriteOutcome> load(String branch, LoadMode mode, Flux<LoadRecord> records, Set<String> overwriteTypes,
                                   Optional<String> actorId, Optional<String> ifGraphCommit,
                                   Optional<Supplier<IdempotentRequest>> idempotency) {
        if (mode != LoadMode.OVERWRITE && !overwriteTypes.isEmpty()) {
            return Mono.error(new BadRequest("types to empty can only be named for an overwrite load"));
        }
        List<String> emptied = new ArrayList<>();
        for (String type : overwriteTypes) {
            CatalogTable table = ctx.catalog().node(type).map(CatalogTable.class::cast)
                    .or(() -> ctx.catalog().edge(type).map(CatalogTable.class::cast))
                    .orElse(null);
            if (table == null) {
                return Mono.error(new BadRequest("overwrite names unknown type '" + type + "'"));
            }
            emptied.add(table.tableKey());
        }
        // The handle's kept key sets move on in the pipeline, after the publish (CommittedKeyCache.carry).
        return LoadBatch.collect(records, ctx.catalog(), mode, ctx.limits())
                .flatMap(batch -> pipeline.run(new DirectPublishPipeline.Request(branch, actorId,
                        Sidecar.WriterKind.Load, "load:" + mode.name().toLowerCase(), "load", ifGraphCommit,
                        token -> plan(token, mode, batch, emptied), idempotency.map(Supplier::get))));
    }

    private Mono<ChangeSet> plan(WriteToken token, LoadMode mode, LoadBatch batch, List<String> emptied) {
        Map<String, TableEntry> pins = new HashMap<>();
        token.state().liveTables().forEach(entry -> pins.put(entry.tableKey(), entry));
        Map<String, LinkedHashMap<String, Map<String, Object>>> byTable = new LinkedHashMap<>(batch.rowsByTable());
        emptied.forEach(key -> byTable.putIfAbsent(key, new LinkedHashMap<>()));
        List<TableChange> changes = new ArrayList<>();
        TableChange.Kind kind = switch (mode) {
            case APPEND -> TableChange.Kind.INSERT;
            case MERGE -> TableChange.Kind.UPSERT;
            case OVERWRITE -> TableChange.Kind.OVERWRITE;
        };
        byTable.forEach((tableKey, rows) -> changes.add(new TableChange(pins.get(tableKey), kind,
                new ArrayList<>(rows.values()), List.of())));
        Map<String, Long> counts = new LinkedHashMap<>(batch.recordsByTable());
        emptied.forEach(key -> counts.putIfAbsent(key, 0L)); // an emptied type is reported, with 0 loaded
        ChangeSet planned = ChangeSet.counted(changes, counts, mode != LoadMode.OVERWRITE);
        if (planned.isEmpty()) {
            return Mono.just(planned);
        }
        CommittedRows committed = new CommittedRows(ctx, keys.keySets(ctx));
        Mono<Void> preflight = mode == LoadMode.APPEND ? requireNewIds(planned, committed) : Mono.empty();
        Mono<ChangeSet> validated = new ChangeValidator(ctx.catalog(), pins, committed).validate(planned);
        // Both only read the pinned tables, so they run side by side; a key conflict is still reported before
        // any rule violation, as when they ran one after the other.
        return Mono.zip(preflight.materialize(), validated.materialize()).flatMap(both -> {
            if (both.getT1().isOnError()) {
                return Mono.error(both.getT1().getThrowable());
            }
            return both.getT2().isOnError() ? Mono.error(both.getT2().getThrowable()) : Mono.just(both.getT2().get());
        });
    }

    /** Append never updates: any id already committed is a terminal key conflict listing the ids. */
    private Mono<Void> requireNewIds(ChangeSet planned, CommittedRows committed) {
        return Flux.fromIterable(planned.changes())
                .concatMap(change -> committed.existing(change.pin(), "id",
                                change.rows().stream().map(row -> (String) row.get("id")).toList())
                        .flatMap(existing -> existing.isEmpty() ? Mono.<Void>empty()
                                : Mono.error(new KeyConflict(change.tableKey().substring(change.tableKey().indexOf(':') + 1),
                                        existing.stream().sorted().toList()))))
                .then();
    }
}
