package dev.omnigraph.engine.schema;

import dev.omnigraph.engine.schema.SchemaIr.ConstraintIr;
import dev.omnigraph.engine.schema.SchemaIr.EdgeIr;
import dev.omnigraph.engine.schema.SchemaIr.EmbedSource;
import dev.omnigraph.engine.schema.SchemaIr.FieldRef;
import dev.omnigraph.engine.schema.SchemaIr.InterfaceIr;
import dev.omnigraph.engine.schema.SchemaIr.NodeIr;
import dev.omnigraph.engine.schema.SchemaIr.PropertyIr;
import dev.omnigraph.engine.schema.SchemaIr.PropertyRef;
import dev.omnigraph.engine.schema.SchemaIr.TypeRef;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Mints stable identities for a fresh graph in the order storage-layout §5 fixes: all types by
 * (kind, name) with Interface &lt; Node &lt; Edge, then all properties by (owner type id, name), then table
 * incarnations of nodes and edges by type id. One counter, starting at 1.
 */
final class IdentityAllocator {
    private enum Kind { INTERFACE, NODE, EDGE }

    private record TypeKey(Kind kind, String name) {}

    private record PropKey(long ownerTypeId, String name) {}

    private final Map<TypeKey, Long> typeIds = new HashMap<>();
    private final Map<PropKey, Long> propertyIds = new HashMap<>();
    private final Map<Long, Long> incarnations = new HashMap<>();
    private long next = 1;

    static SchemaIr initial(CompiledSchema schema, String domain) {
        IdentityAllocator a = new IdentityAllocator();
        a.allocate(schema);
        return a.build(schema, domain);
    }

    /**
     * Identities for {@code schema} as an evolution of {@code accepted}: a type or property keeps its identity
     * when its name is unchanged or its {@code @rename_from("Old")} names an accepted one that the new schema no
     * longer declares; everything else gets fresh ids from the accepted counter in the same order as a fresh graph.
     */
    static SchemaIr evolve(CompiledSchema schema, SchemaIr accepted) {
        IdentityAllocator a = new IdentityAllocator();
        a.next = accepted.nextIdentityId();
        a.inherit(schema, accepted);
        a.allocate(schema);
        return a.build(schema, accepted.schemaIdentityDomain());
    }

    private void inherit(CompiledSchema schema, SchemaIr accepted) {
        java.util.Set<String> nodeNames = new java.util.HashSet<>();
        schema.nodes().forEach(n -> nodeNames.add(n.name()));
        java.util.Set<String> edgeNames = new java.util.HashSet<>();
        schema.edges().forEach(e -> edgeNames.add(e.name()));
        java.util.Set<String> ifaceNames = new java.util.HashSet<>();
        schema.interfaces().forEach(i -> ifaceNames.add(i.name()));
        for (InterfaceType t : schema.interfaces()) {
            matched(accepted.interfaces(), InterfaceIr::name, t.name(), java.util.Optional.empty(), ifaceNames)
                    .ifPresent(old -> {
                        typeIds.put(new TypeKey(Kind.INTERFACE, t.name()), old.typeId());
                        inheritProperties(old.typeId(), t.properties(), old.properties());
                    });
        }
        for (NodeType t : schema.nodes()) {
            matched(accepted.nodes(), NodeIr::name, t.name(), t.annotation("rename_from"), nodeNames).ifPresent(old -> {
                typeIds.put(new TypeKey(Kind.NODE, t.name()), old.typeId());
                incarnations.put(old.typeId(), old.tableIncarnationId());
                inheritProperties(old.typeId(), t.properties(), old.properties());
            });
        }
        for (EdgeType t : schema.edges()) {
            matched(accepted.edges(), EdgeIr::name, t.name(), t.annotation("rename_from"), edgeNames).ifPresent(old -> {
                typeIds.put(new TypeKey(Kind.EDGE, t.name()), old.typeId());
                incarnations.put(old.typeId(), old.tableIncarnationId());
                inheritProperties(old.typeId(), t.properties(), old.properties());
            });
        }
    }

    private void inheritProperties(long typeId, List<Property> properties, List<PropertyIr> old) {
        java.util.Set<String> names = new java.util.HashSet<>();
        properties.forEach(p -> names.add(p.name()));
        for (Property p : properties) {
            matched(old, PropertyIr::name, p.name(), p.annotation("rename_from"), names)
                    .ifPresent(o -> propertyIds.put(new PropKey(typeId, p.name()), o.propertyId()));
        }
    }

    /** The accepted item named {@code name}, else the one its rename hint names if that name is gone now. */
    private static <T> java.util.Optional<T> matched(List<T> accepted, java.util.function.Function<T, String> nameOf,
                                                     String name, java.util.Optional<Annotation> renameFrom,
                                                     java.util.Set<String> newNames) {
        java.util.Optional<T> same = accepted.stream().filter(t -> nameOf.apply(t).equals(name)).findFirst();
        if (same.isPresent()) {
            return same;
        }
        return renameFrom.map(Annotation::value).filter(old -> old != null && !newNames.contains(old))
                .flatMap(old -> accepted.stream().filter(t -> nameOf.apply(t).equals(old)).findFirst());
    }

    private void allocate(CompiledSchema schema) {
        List<TypeKey> types = new ArrayList<>();
        schema.interfaces().forEach(t -> types.add(new TypeKey(Kind.INTERFACE, t.name())));
        schema.nodes().forEach(t -> types.add(new TypeKey(Kind.NODE, t.name())));
        schema.edges().forEach(t -> types.add(new TypeKey(Kind.EDGE, t.name())));
        types.sort(Comparator.comparing(TypeKey::kind).thenComparing(TypeKey::name));
        for (TypeKey t : types) if (!typeIds.containsKey(t)) typeIds.put(t, next++);

        TreeMap<PropKey, Boolean> props = new TreeMap<>(
                Comparator.comparingLong(PropKey::ownerTypeId).thenComparing(PropKey::name));
        schema.interfaces().forEach(t -> t.properties().forEach(p ->
                props.put(new PropKey(typeId(Kind.INTERFACE, t.name()), p.name()), true)));
        schema.nodes().forEach(t -> t.properties().forEach(p ->
                props.put(new PropKey(typeId(Kind.NODE, t.name()), p.name()), true)));
        schema.edges().forEach(t -> t.properties().forEach(p ->
                props.put(new PropKey(typeId(Kind.EDGE, t.name()), p.name()), true)));
        for (PropKey p : props.keySet()) if (!propertyIds.containsKey(p)) propertyIds.put(p, next++);

        List<Long> tables = new ArrayList<>();
        schema.nodes().forEach(t -> tables.add(typeId(Kind.NODE, t.name())));
        schema.edges().forEach(t -> tables.add(typeId(Kind.EDGE, t.name())));
        tables.sort(Comparator.naturalOrder());
        for (Long t : tables) if (!incarnations.containsKey(t)) incarnations.put(t, next++);
    }

    private SchemaIr build(CompiledSchema schema, String domain) {
        List<InterfaceIr> interfaces = schema.interfaces().stream()
                .sorted(Comparator.comparing(InterfaceType::name))
                .map(t -> {
                    long id = typeId(Kind.INTERFACE, t.name());
                    return new InterfaceIr(t.name(), id, properties(id, t.name(), t.properties()));
                }).toList();
        List<NodeIr> nodes = schema.nodes().stream()
                .sorted(Comparator.comparing(NodeType::name))
                .map(t -> {
                    long id = typeId(Kind.NODE, t.name());
                    List<TypeRef> impl = t.implementsTypes().stream()
                            .map(i -> new TypeRef(typeId(Kind.INTERFACE, i), i)).toList();
                    List<ConstraintIr> constraints = t.constraints().stream()
                            .map(c -> constraint(c, id, t.name(), incarnations.get(id))).toList();
                    return new NodeIr(t.name(), id, incarnations.get(id), t.annotations(), impl,
                            properties(id, t.name(), t.properties()), constraints);
                }).toList();
        List<EdgeIr> edges = schema.edges().stream()
                .sorted(Comparator.comparing(EdgeType::name))
                .map(t -> {
                    long id = typeId(Kind.EDGE, t.name());
                    List<ConstraintIr> constraints = t.constraints().stream()
                            .map(c -> constraint(c, id, t.name(), incarnations.get(id))).toList();
                    return new EdgeIr(t.name(), id, incarnations.get(id),
                            new TypeRef(typeId(Kind.NODE, t.fromType()), t.fromType()),
                            new TypeRef(typeId(Kind.NODE, t.toType()), t.toType()),
                            t.cardinality(), t.annotations(), properties(id, t.name(), t.properties()), constraints);
                }).toList();
        return new SchemaIr(SchemaIr.IR_VERSION, domain, next, interfaces, nodes, edges);
    }

    /** Listed by property id so the IR (and its hash) does not depend on source order; column order is the catalog's business. */
    private List<PropertyIr> properties(long ownerId, String ownerName, List<Property> props) {
        return props.stream().sorted(Comparator.comparingLong(p -> propertyIds.get(new PropKey(ownerId, p.name())))).map(p -> {
            EmbedSource embed = p.embed()
                    .map(e -> new EmbedSource(propertyRef(ownerId, ownerName, e.source()), e.model()))
                    .orElse(null);
            List<PropertyRef> satisfies = p.interfaceOrigins().stream()
                    .map(i -> propertyRef(typeId(Kind.INTERFACE, i), i, p.name())).toList();
            return new PropertyIr(p.name(), propertyIds.get(new PropKey(ownerId, p.name())), p.type(), p.nullable(),
                    p.annotations(), embed, p.declaredDirectly(), satisfies);
        }).toList();
    }

    private ConstraintIr constraint(Constraint c, long tableId, String tableName, long incarnation) {
        java.util.function.Function<String, FieldRef> field = name -> switch (name) {
            // Only edges may name the implicit endpoint columns (the checker enforces it).
            case "src" -> propertyIds.containsKey(new PropKey(tableId, name)) ? propertyField(tableId, tableName, name)
                    : new FieldRef.SystemField(tableId, tableName, incarnation, SchemaIr.SystemRole.SRC);
            case "dst" -> propertyIds.containsKey(new PropKey(tableId, name)) ? propertyField(tableId, tableName, name)
                    : new FieldRef.SystemField(tableId, tableName, incarnation, SchemaIr.SystemRole.DST);
            default -> propertyField(tableId, tableName, name);
        };
        if (c instanceof Constraint.Key k) return new ConstraintIr.Key(k.properties().stream().map(field).toList());
        if (c instanceof Constraint.Unique u) return new ConstraintIr.Unique(u.properties().stream().map(field).toList());
        if (c instanceof Constraint.Index i) return new ConstraintIr.Index(i.properties().stream().map(field).toList());
        if (c instanceof Constraint.Range r) return new ConstraintIr.Range(field.apply(r.property()), r.min(), r.max());
        Constraint.Check ch = (Constraint.Check) c;
        return new ConstraintIr.Check(field.apply(ch.property()), ch.pattern());
    }

    private FieldRef propertyField(long ownerId, String ownerName, String name) {
        return new FieldRef.PropertyField(propertyRef(ownerId, ownerName, name));
    }

    private PropertyRef propertyRef(long ownerId, String ownerName, String name) {
        Long id = propertyIds.get(new PropKey(ownerId, name));
        if (id == null) throw new IllegalStateException("no property " + ownerName + "." + name);
        return new PropertyRef(ownerId, ownerName, id, name);
    }

    private long typeId(Kind kind, String name) {
        Long id = typeIds.get(new TypeKey(kind, name));
        if (id == null) throw new IllegalArgumentException("no " + kind.name().toLowerCase() + " type named " + name);
        return id;
    }
}
