package dev.omnigraph.engine.write;

import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.Constraint;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.EdgeType;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.NodeType;
import dev.omnigraph.engine.schema.Property;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.storage.error.ValidationError;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The schema's rules checked over a whole change set against the committed state it was planned on, before any
 * effect: enum values, {@code @range}, {@code @check}, {@code @unique} (pending and committed), referential
 * integrity of edges, no edge orphaned by a node overwrite, and edge {@code @card} bounds after the change of
 * every source node whose edges the change adds or removes.
 * The first violation fails the write with a {@link ValidationError} naming type, property and id; a
 * {@link #collecting} validator (the branch merge's) records every violation with its rule instead.
 */
public final class ChangeValidator {
    /** Which rule a violation broke. */
    public enum Rule { VALUE, UNIQUE, ENDPOINT, ORPHAN, CARDINALITY }

    /** One broken rule, as the error a failing write would report. */
    public record Violation(Rule rule, ValidationError error) {
    }

    private final Catalog catalog;
    private final Map<String, TableEntry> pins;
    private final CommittedRows committed;
    private final Map<String, Pattern> patterns = new HashMap<>();
    private final Consumer<Violation> sink;

    public ChangeValidator(Catalog catalog, Map<String, TableEntry> pins, CommittedRows committed) {
        this(catalog, pins, committed, violation -> {
            throw violation.error();
        });
    }

    private ChangeValidator(Catalog catalog, Map<String, TableEntry> pins, CommittedRows committed,
                            Consumer<Violation> sink) {
        this.catalog = catalog;
        this.pins = pins;
        this.committed = committed;
        this.sink = sink;
    }

    /** A validator that adds every violation to {@code into} (synchronised by the caller's sequential use). */
    public static ChangeValidator collecting(Catalog catalog, Map<String, TableEntry> pins, CommittedRows committed,
                                             List<Violation> into) {
        return new ChangeValidator(catalog, pins, committed, into::add);
    }

    private void report(Rule rule, ValidationError error) {
        sink.accept(new Violation(rule, error));
    }

    public Mono<ChangeSet> validate(ChangeSet changes) {
        Map<String, TableChange> byKey = new HashMap<>();
        changes.changes().forEach(change -> byKey.put(change.tableKey(), change));
        return Flux.fromIterable(changes.changes())
                .concatMap(change -> {
                    checkValues(change);
                    return checkUnique(change)
                            .then(checkEndpoints(change, byKey))
                            .then(checkNoOrphans(change, byKey));
                })
                .then(Flux.fromIterable(catalog.edges().values()).concatMap(edge -> checkCardinality(edge, byKey)).then())
                .thenReturn(changes);
    }

    // ---- per-row value rules -------------------------------------------------------------------------------

    private void checkValues(TableChange change) {
        String typeName = typeName(change);
        List<Property> properties = properties(change);
        List<Constraint> constraints = constraints(change);
        for (Map<String, Object> row : change.rows()) {
            String id = (String) row.get("id");
            for (Property property : properties) {
                Object value = row.get(property.name());
                if (value == null) {
                    if (!property.nullable()) {
                        report(Rule.VALUE, new ValidationError(typeName, property.name(), id,
                                typeName + " " + id + ": required property '" + property.name() + "' is missing"));
                    }
                    continue;
                }
                if (property.type() instanceof PropertyType.EnumOf allowed && !allowed.values().contains(value)) {
                    report(Rule.VALUE, new ValidationError(typeName, property.name(), id, typeName + " " + id + ": '"
                            + value + "' is not an allowed value of " + property.name() + " " + allowed.values()));
                }
            }
            for (Constraint constraint : constraints) {
                if (constraint instanceof Constraint.Range range) {
                    checkRange(typeName, id, range, row.get(range.property()));
                } else if (constraint instanceof Constraint.Check check) {
                    Object value = row.get(check.property());
                    if (value != null && !pattern(check.pattern()).matcher((String) value).matches()) {
                        report(Rule.VALUE, new ValidationError(typeName, check.property(), id, typeName + " " + id
                                + ": " + check.property() + " '" + value + "' does not match @check \"" + check.pattern() + "\""));
                    }
                }
            }
        }
    }

    private void checkRange(String typeName, String id, Constraint.Range range, Object value) {
        if (value == null) {
            return;
        }
        double number = ((Number) value).doubleValue();
        boolean below = range.min() != null && number < range.min().asDouble();
        boolean above = range.max() != null && number > range.max().asDouble();
        if (below || above) {
            report(Rule.VALUE, new ValidationError(typeName, range.property(), id, typeName + " " + id + ": "
                    + range.property() + " = " + value + " is outside @range(" + bound(range.min()) + ".." + bound(range.max()) + ")"));
        }
    }

    private static String bound(dev.omnigraph.engine.schema.RangeBound bound) {
        if (bound == null) return "";
        return bound instanceof dev.omnigraph.engine.schema.RangeBound.IntBound i ? Long.toString(i.value())
                : Double.toString(bound.asDouble());
    }

    private Pattern pattern(String regex) {
        return patterns.computeIfAbsent(regex, Pattern::compile);
    }

    // ---- uniqueness ----------------------------------------------------------------------------------------

    private Mono<Void> checkUnique(TableChange change) {
        if (change.rows().isEmpty()) {
            return Mono.empty();
        }
        String typeName = typeName(change);
        Set<String> pendingIds = new HashSet<>();
        change.rows().forEach(row -> pendingIds.add((String) row.get("id")));
        return Flux.fromIterable(constraints(change))
                .filter(Constraint.Unique.class::isInstance)
                .concatMap(constraint -> {
                    List<String> props = constraint.properties();
                    Map<List<Object>, String> seen = new HashMap<>();
                    for (Map<String, Object> row : change.rows()) {
                        List<Object> tuple = tuple(row, props);
                        if (tuple == null) continue; // nulls are exempt
                        String other = seen.putIfAbsent(tuple, (String) row.get("id"));
                        if (other != null) {
                            report(Rule.UNIQUE, duplicate(typeName, props, (String) row.get("id"), other, tuple));
                        }
                    }
                    if (change.kind() == TableChange.Kind.OVERWRITE || seen.isEmpty()) {
                        return Mono.empty();
                    }
                    List<String> columns = new ArrayList<>(props);
                    columns.add(0, "id");
                    return committed.where(change.pin(), "", columns)
                            .filter(row -> !pendingIds.contains((String) row.get("id"))
                                    && !change.deleteIds().contains((String) row.get("id")))
                            .doOnNext(row -> {
                                List<Object> tuple = tuple(row, props);
                                if (tuple != null && seen.containsKey(tuple)) {
                                    report(Rule.UNIQUE, duplicate(typeName, props, seen.get(tuple), (String) row.get("id"), tuple));
                                }
                            })
                            .then();
                })
                .then();
    }

    private static List<Object> tuple(Map<String, Object> row, List<String> props) {
        List<Object> tuple = new ArrayList<>(props.size());
        for (String prop : props) {
            Object value = row.get(prop);
            if (value == null) return null;
            tuple.add(value);
        }
        return tuple;
    }

    private static ValidationError duplicate(String typeName, List<String> props, String id, String other, List<Object> tuple) {
        return new ValidationError(typeName, String.join(",", props), id, typeName + " " + id + ": @unique("
                + String.join(", ", props) + ") value " + tuple + " is already used by " + other);
    }

    // ---- referential integrity -----------------------------------------------------------------------------

    private Mono<Void> checkEndpoints(TableChange change, Map<String, TableChange> byKey) {
        if (change.isNode() || change.rows().isEmpty()) {
            return Mono.empty();
        }
        EdgeTable edge = edgeTable(change);
        List<Endpoints> ends = List.of(endpoints(change, "src", edge.type().fromType(), byKey),
                endpoints(change, "dst", edge.type().toType(), byKey));
        // One lookup per node table: src and dst of a Person -> Person edge share it.
        Map<String, Set<String>> lookups = new LinkedHashMap<>();
        ends.stream().filter(Endpoints::committedCount)
                .forEach(end -> lookups.computeIfAbsent(end.node().tableKey(), key -> new HashSet<>()).addAll(end.missing()));
        return Flux.fromIterable(lookups.entrySet())
                .concatMap(lookup -> committed.existing(pin(lookup.getKey()), "id", lookup.getValue())
                        .map(found -> Map.entry(lookup.getKey(), found)))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                .doOnNext(found -> ends.forEach(end -> end.report(this, edge, change,
                        found.getOrDefault(end.node().tableKey(), Set.of()))))
                .then();
    }

    /** The endpoints of one column that neither the change's own node rows nor an overwrite of their table supply. */
    private record Endpoints(String column, NodeTable node, Set<String> missing, Set<String> gone,
                             boolean committedCount) {
        /** Reports every edge whose endpoint is missing from the committed {@code found} ids or was deleted. */
        void report(ChangeValidator validator, EdgeTable edge, TableChange change, Set<String> found) {
            Set<String> absent = new HashSet<>(missing);
            if (committedCount) {
                found.stream().filter(id -> !gone.contains(id)).forEach(absent::remove);
            }
            if (absent.isEmpty()) {
                return;
            }
            String end = column.equals("src") ? "from" : "to";
            change.rows().stream().filter(row -> absent.contains((String) row.get(column))).forEach(offender ->
                    validator.report(Rule.ENDPOINT, new ValidationError(edge.type().name(), end, (String) offender.get("id"),
                            edge.type().name() + " " + offender.get("id") + ": " + end + " node " + node.type().name()
                                    + " '" + offender.get(column) + "' does not exist")));
        }
    }

    private Endpoints endpoints(TableChange change, String column, String nodeType, Map<String, TableChange> byKey) {
        NodeTable node = catalog.node(nodeType).orElseThrow();
        TableChange nodeChange = byKey.get(node.tableKey());
        Set<String> missing = new HashSet<>();
        change.rows().forEach(row -> missing.add((String) row.get(column)));
        Set<String> gone = new HashSet<>();
        if (nodeChange != null) {
            nodeChange.rows().forEach(row -> missing.remove((String) row.get("id")));
            gone.addAll(nodeChange.deleteIds());
        }
        // an overwrite's new image replaces every committed node: an endpoint it lacks does not exist
        boolean committedCount = nodeChange == null || nodeChange.kind() != TableChange.Kind.OVERWRITE;
        return new Endpoints(column, node, missing, gone, committedCount);
    }

    /** Overwriting a node table must not leave edges (committed or pending) pointing at removed nodes. */
    private Mono<Void> checkNoOrphans(TableChange change, Map<String, TableChange> byKey) {
        if (!change.isNode() || change.kind() != TableChange.Kind.OVERWRITE) {
            return Mono.empty();
        }
        NodeTable node = nodeTable(change);
        Set<String> kept = new HashSet<>();
        change.rows().forEach(row -> kept.add((String) row.get("id")));
        return Flux.fromIterable(catalog.edges().values())
                .filter(edge -> edge.type().fromType().equals(node.type().name()) || edge.type().toType().equals(node.type().name()))
                .concatMap(edge -> {
                    TableChange edgeChange = byKey.get(edge.tableKey());
                    Flux<Map<String, Object>> surviving = edgeChange != null && edgeChange.kind() == TableChange.Kind.OVERWRITE
                            ? Flux.fromIterable(edgeChange.rows())
                            : committed.where(pin(edge.tableKey()), "", List.of("id", "src", "dst"))
                                    .filter(row -> edgeChange == null || !edgeChange.deleteIds().contains((String) row.get("id")));
                    return surviving.doOnNext(row -> {
                        for (String column : List.of("src", "dst")) {
                            boolean endpointType = column.equals("src") ? edge.type().fromType().equals(node.type().name())
                                    : edge.type().toType().equals(node.type().name());
                            if (endpointType && !kept.contains((String) row.get(column))) {
                                report(Rule.ORPHAN, new ValidationError(node.type().name(), null, (String) row.get(column),
                                        "overwriting " + node.type().name() + " would orphan " + edge.type().name() + " "
                                                + row.get("id") + " (its " + (column.equals("src") ? "from" : "to") + " node '"
                                                + row.get(column) + "' is not in the new image); load or delete those edges too"));
                            }
                        }
                    }).then();
                })
                .then();
    }

    // ---- cardinality ---------------------------------------------------------------------------------------

    private Mono<Void> checkCardinality(EdgeTable edge, Map<String, TableChange> byKey) {
        EdgeType type = edge.type();
        if (type.cardinality().isDefault()) {
            return Mono.empty();
        }
        TableChange edgeChange = byKey.get(edge.tableKey());
        NodeTable source = catalog.node(type.fromType()).orElseThrow();
        TableChange sourceChange = byKey.get(source.tableKey());
        // As upstream: only sources whose edges this write adds or removes are checked, so nodes may be loaded
        // before their edges even under a minimum (@card(1..)); a later write touching their edges enforces it.
        Set<String> affected = new HashSet<>();
        if (edgeChange != null) {
            edgeChange.rows().forEach(row -> affected.add((String) row.get("src")));
        }
        Set<String> deletedSources = sourceChange == null ? Set.of() : new HashSet<>(sourceChange.deleteIds());
        boolean edgesReplaced = edgeChange != null && edgeChange.kind() == TableChange.Kind.OVERWRITE;
        // Sources losing edges: those of deleted edges, or of every committed edge when the table is replaced.
        Flux<Map<String, Object>> removedEdges = edgesReplaced
                ? (type.cardinality().min() > 0 ? committed.where(pin(edge.tableKey()), "", List.of("src")) : Flux.empty())
                : edgeChange == null || edgeChange.deleteIds().isEmpty() ? Flux.empty()
                : committed.whereIn(pin(edge.tableKey()), "id", edgeChange.deleteIds(), List.of("src"));
        // An upsert may move a committed edge to another source (a merge load naming an existing edge id with a
        // new "from"): the source it leaves loses that edge, so its minimum is checked too (as the reference does).
        boolean byId = edgeChange != null && (edgeChange.kind() == TableChange.Kind.UPSERT
                || edgeChange.kind() == TableChange.Kind.ROW_DELTA);
        Flux<Map<String, Object>> vacated = byId && type.cardinality().min() > 0 && !edgeChange.rows().isEmpty()
                ? committed.whereIn(pin(edge.tableKey()), "id",
                        edgeChange.rows().stream().map(row -> (String) row.get("id")).toList(), List.of("src"))
                : Flux.empty();
        Mono<Set<String>> fromDeletedEdges = Flux.concat(removedEdges, vacated).map(row -> (String) row.get("src"))
                .collect(HashSet::new, Set::add);
        return fromDeletedEdges.flatMap(more -> {
            affected.addAll(more);
            affected.removeAll(deletedSources);
            if (sourceChange != null && sourceChange.kind() == TableChange.Kind.OVERWRITE) {
                // Sources the node overwrite removes have no edges to count (orphans are refused separately).
                Set<String> kept = new HashSet<>();
                sourceChange.rows().forEach(row -> kept.add((String) row.get("id")));
                affected.retainAll(kept);
            }
            if (affected.isEmpty()) {
                return Mono.empty();
            }
            Map<String, Set<String>> edgesBySource = new HashMap<>();
            Set<String> replacedOrGone = new HashSet<>();
            if (edgeChange != null) {
                edgeChange.rows().forEach(row -> {
                    replacedOrGone.add((String) row.get("id"));
                    edgesBySource.computeIfAbsent((String) row.get("src"), k -> new HashSet<>()).add((String) row.get("id"));
                });
                replacedOrGone.addAll(edgeChange.deleteIds());
            }
            Flux<Map<String, Object>> committedEdges = edgesReplaced ? Flux.empty()
                    : committed.whereIn(pin(edge.tableKey()), "src", affected, List.of("id", "src"));
            return committedEdges
                    .filter(row -> !replacedOrGone.contains((String) row.get("id")))
                    .doOnNext(row -> edgesBySource.computeIfAbsent((String) row.get("src"), k -> new HashSet<>())
                            .add((String) row.get("id")))
                    .then(Mono.fromRunnable(() -> {
                        for (String src : affected) {
                            int count = edgesBySource.getOrDefault(src, Set.of()).size();
                            long min = type.cardinality().min();
                            Optional<Long> max = type.cardinality().max().isPresent()
                                    ? Optional.of(type.cardinality().max().getAsLong()) : Optional.empty();
                            if (count < min || (max.isPresent() && count > max.get())) {
                                report(Rule.CARDINALITY, new ValidationError(type.name(), null, src, type.fromType() + " '" + src
                                        + "' would have " + count + " outgoing " + type.name() + " edge(s), outside @card("
                                        + type.cardinality() + ")"));
                            }
                        }
                    }));
        });
    }

    // ---- lookups -------------------------------------------------------------------------------------------

    private TableEntry pin(String tableKey) {
        TableEntry entry = pins.get(tableKey);
        if (entry == null) {
            throw new IllegalStateException("no manifest pin for " + tableKey);
        }
        return entry;
    }

    private NodeTable nodeTable(TableChange change) {
        return catalog.node(change.tableKey().substring("node:".length())).orElseThrow();
    }

    private EdgeTable edgeTable(TableChange change) {
        return catalog.edge(change.tableKey().substring("edge:".length())).orElseThrow();
    }

    private String typeName(TableChange change) {
        return change.tableKey().substring(change.tableKey().indexOf(':') + 1);
    }

    private List<Property> properties(TableChange change) {
        return change.isNode() ? nodeTable(change).type().properties() : edgeTable(change).type().properties();
    }

    private List<Constraint> constraints(TableChange change) {
        if (change.isNode()) {
            NodeType type = nodeTable(change).type();
            return type.constraints();
        }
        return edgeTable(change).type().constraints();
    }
}
