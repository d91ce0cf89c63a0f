package dev.omnigraph.engine.merge;

import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.write.ChangeSet;
import dev.omnigraph.engine.write.ChangeValidator;
import dev.omnigraph.engine.write.CommittedRows;
import dev.omnigraph.engine.write.TableChange;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.error.MergeConflicts;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Validates the merged image: the planned change set against the target's committed state, with every schema
 * rule the writers enforce ({@link ChangeValidator}, collecting instead of failing on the first), plus the
 * merge's own rule that a node the merge deletes leaves no target edge behind. Each violation becomes a conflict.
 */
final class MergeValidation {
    private final WriteContext ctx;
    private final ManifestState target;

    MergeValidation(WriteContext ctx, ManifestState target) {
        this.ctx = ctx;
        this.target = target;
    }

    Mono<List<MergeConflicts.Conflict>> conflicts(ChangeSet changes) {
        if (changes.isEmpty()) {
            return Mono.just(List.of());
        }
        Map<String, TableEntry> pins = new HashMap<>();
        target.liveTables().forEach(entry -> pins.put(entry.tableKey(), entry));
        CommittedRows committed = new CommittedRows(ctx);
        List<ChangeValidator.Violation> violations = new ArrayList<>();
        List<MergeConflicts.Conflict> conflicts = new ArrayList<>();
        return ChangeValidator.collecting(ctx.catalog(), pins, committed, violations).validate(changes)
                .then(orphans(changes, pins, committed, conflicts))
                .then(Mono.fromSupplier(() -> {
                    List<MergeConflicts.Conflict> all = new ArrayList<>();
                    violations.forEach(violation -> all.add(conflict(violation)));
                    all.addAll(conflicts);
                    return all;
                }));
    }

    private MergeConflicts.Conflict conflict(ChangeValidator.Violation violation) {
        String type = violation.error().typeName();
        String entityKind = ctx.catalog().node(type).isPresent() ? "node" : "edge";
        MergeConflicts.Kind kind = switch (violation.rule()) {
            case VALUE -> MergeConflicts.Kind.VALUE_CONSTRAINT_VIOLATION;
            case UNIQUE -> MergeConflicts.Kind.UNIQUE_VIOLATION;
            case ENDPOINT, ORPHAN -> MergeConflicts.Kind.ORPHAN_EDGE;
            case CARDINALITY -> MergeConflicts.Kind.CARDINALITY_VIOLATION;
        };
        return new MergeConflicts.Conflict(entityKind, type, Optional.ofNullable(violation.error().entityId()), kind,
                violation.error().getMessage());
    }

    /** Target edges (not rewritten or deleted by the merge) whose endpoint node the merge deletes. */
    private Mono<Void> orphans(ChangeSet changes, Map<String, TableEntry> pins, CommittedRows committed,
                               List<MergeConflicts.Conflict> into) {
        Map<String, TableChange> byKey = new HashMap<>();
        changes.changes().forEach(change -> byKey.put(change.tableKey(), change));
        return Flux.fromIterable(changes.changes())
                .filter(change -> change.isNode() && !change.deleteIds().isEmpty())
                .concatMap(change -> {
                    String nodeType = change.tableKey().substring("node:".length());
                    return Flux.fromIterable(ctx.catalog().edges().values())
                            .concatMap(edge -> Flux.fromIterable(List.of("src", "dst"))
                                    .filter(column -> endpointType(edge, column).equals(nodeType))
                                    .concatMap(column -> committed.whereIn(pins.get(edge.tableKey()), column,
                                                    change.deleteIds(), List.of("id", column))
                                            .filter(row -> !touched(byKey.get(edge.tableKey())).contains((String) row.get("id")))
                                            .doOnNext(row -> into.add(new MergeConflicts.Conflict("edge", edge.type().name(),
                                                    Optional.of((String) row.get("id")), MergeConflicts.Kind.ORPHAN_EDGE,
                                                    edge.type().name() + " " + row.get("id") + " references " + nodeType
                                                            + " '" + row.get(column) + "', which the merge deletes")))));
                })
                .then();
    }

    private static String endpointType(EdgeTable edge, String column) {
        return column.equals("src") ? edge.type().fromType() : edge.type().toType();
    }

    private static Set<String> touched(TableChange edgeChange) {
        Set<String> ids = new HashSet<>();
        if (edgeChange != null) {
            edgeChange.rows().forEach(row -> ids.add((String) row.get("id")));
            ids.addAll(edgeChange.deleteIds());
        }
        return ids;
    }
}
