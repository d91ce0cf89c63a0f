package dev.omnigraph.engine.schema;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The identity-bearing schema IR ({@code _schema.ir.json}, ir_version 2). Type ids, property ids and table
 * incarnation ids are non-zero and drawn from one never-reused counter; {@code nextIdentityId} is the next
 * value to hand out. Types are listed by name and properties by property id, so the IR of a given shape and
 * identity assignment is the same whatever the source order. (Column order of a new dataset comes from the
 * compiled schema, see {@link Catalog}.)
 */
public record SchemaIr(int irVersion, String schemaIdentityDomain, long nextIdentityId,
                       List<InterfaceIr> interfaces, List<NodeIr> nodes, List<EdgeIr> edges) {
    public static final int IR_VERSION = 2;

    public SchemaIr {
        if (irVersion != IR_VERSION) throw new IllegalArgumentException("unsupported ir_version " + irVersion);
        if (!dev.omnigraph.storage.Ulid.isValid(schemaIdentityDomain))
            throw new IllegalArgumentException("schema_identity_domain is not a canonical ULID: " + schemaIdentityDomain);
        if (nextIdentityId < 1) throw new IllegalArgumentException("next_identity_id must be >= 1");
        interfaces = List.copyOf(interfaces);
        nodes = List.copyOf(nodes);
        edges = List.copyOf(edges);
        checkIds(nextIdentityId, interfaces, nodes, edges);
    }

    /** Allocates identities for a brand-new graph (counter starts at 1; rename hints are inert). */
    public static SchemaIr initial(CompiledSchema schema, String domainUlid) {
        return IdentityAllocator.initial(schema, domainUlid);
    }

    /** Identities for {@code schema} evolved from {@code accepted} (renames keep identity; see IdentityAllocator). */
    public static SchemaIr evolve(CompiledSchema schema, SchemaIr accepted) {
        return IdentityAllocator.evolve(schema, accepted);
    }

    /** {@link #initial(CompiledSchema, String)} with a freshly minted domain. */
    public static SchemaIr initial(CompiledSchema schema) {
        return initial(schema, dev.omnigraph.storage.Ulid.next());
    }

    /** Canonical compact JSON, the content of {@code _schema.ir.json}. */
    public String toJson() {
        return SchemaIrJson.write(this);
    }

    public static SchemaIr fromJson(String json) {
        return SchemaIrJson.read(json);
    }

    /** {@code schema_ir_hash}: SHA-256 hex of {@link #toJson()}. */
    public String irHash() {
        return SchemaShapeHash.sha256Hex(toJson());
    }

    public Optional<InterfaceIr> interfaceIr(String name) {
        return interfaces.stream().filter(t -> t.name().equals(name)).findFirst();
    }

    public Optional<NodeIr> node(String name) {
        return nodes.stream().filter(t -> t.name().equals(name)).findFirst();
    }

    public Optional<EdgeIr> edge(String name) {
        return edges.stream().filter(t -> t.name().equals(name)).findFirst();
    }

    public record TypeRef(long typeId, String typeName) {}

    public record PropertyRef(long ownerTypeId, String ownerTypeName, long propertyId, String propertyName) {}

    /** {@code @embed} resolved to the stable identity of its source property; model may be null. */
    public record EmbedSource(PropertyRef source, String model) {}

    /**
     * @param embedSource                  null unless the property carries {@code @embed}
     * @param satisfiesInterfaceProperties the interface properties this node property was copied from
     */
    public record PropertyIr(String name, long propertyId, PropertyType type, boolean nullable,
                             List<Annotation> annotations, EmbedSource embedSource, boolean declaredDirectly,
                             List<PropertyRef> satisfiesInterfaceProperties) {
        public PropertyIr {
            annotations = List.copyOf(annotations);
            satisfiesInterfaceProperties = List.copyOf(satisfiesInterfaceProperties);
        }
    }

    public record InterfaceIr(String name, long typeId, List<PropertyIr> properties) {
        public InterfaceIr {
            properties = List.copyOf(properties);
        }
    }

    public record NodeIr(String name, long typeId, long tableIncarnationId, List<Annotation> annotations,
                         List<TypeRef> implementsTypes, List<PropertyIr> properties, List<ConstraintIr> constraints) {
        public NodeIr {
            annotations = List.copyOf(annotations);
            implementsTypes = List.copyOf(implementsTypes);
            properties = List.copyOf(properties);
            constraints = List.copyOf(constraints);
        }

        public Optional<PropertyIr> property(String name) {
            return properties.stream().filter(p -> p.name().equals(name)).findFirst();
        }
    }

    public record EdgeIr(String name, long typeId, long tableIncarnationId, TypeRef fromType, TypeRef toType,
                         Cardinality cardinality, List<Annotation> annotations, List<PropertyIr> properties,
                         List<ConstraintIr> constraints) {
        public EdgeIr {
            annotations = List.copyOf(annotations);
            properties = List.copyOf(properties);
            constraints = List.copyOf(constraints);
        }

        public Optional<PropertyIr> property(String name) {
            return properties.stream().filter(p -> p.name().equals(name)).findFirst();
        }
    }

    public enum SystemRole { ID, SRC, DST }

    /** A constraint operand: a user property, or one of the implicit id/src/dst columns of a table. */
    public sealed interface FieldRef {
        String name();

        record PropertyField(PropertyRef property) implements FieldRef {
            @Override
            public String name() {
                return property.propertyName();
            }
        }

        record SystemField(long stableTableId, String tableTypeName, long tableIncarnationId, SystemRole role)
                implements FieldRef {
            @Override
            public String name() {
                return role.name().toLowerCase(java.util.Locale.ROOT);
            }
        }
    }

    public sealed interface ConstraintIr {
        record Key(List<FieldRef> fields) implements ConstraintIr {
            public Key {
                fields = List.copyOf(fields);
            }
        }

        record Unique(List<FieldRef> fields) implements ConstraintIr {
            public Unique {
                fields = List.copyOf(fields);
            }
        }

        record Index(List<FieldRef> fields) implements ConstraintIr {
            public Index {
                fields = List.copyOf(fields);
            }
        }

        record Range(FieldRef field, RangeBound min, RangeBound max) implements ConstraintIr {}

        record Check(FieldRef field, String pattern) implements ConstraintIr {}
    }

    /** Every id is non-zero, used once, and below the counter's high-water mark. */
    private static void checkIds(long next, List<InterfaceIr> interfaces, List<NodeIr> nodes, List<EdgeIr> edges) {
        Set<Long> seen = new HashSet<>();
        java.util.function.LongConsumer use = id -> {
            if (id < 1 || id >= next)
                throw new IllegalArgumentException("identity " + id + " is outside [1, next_identity_id=" + next + ")");
            if (!seen.add(id)) throw new IllegalArgumentException("identity " + id + " is used twice");
        };
        for (InterfaceIr t : interfaces) {
            use.accept(t.typeId());
            t.properties().forEach(p -> use.accept(p.propertyId()));
        }
        for (NodeIr t : nodes) {
            use.accept(t.typeId());
            use.accept(t.tableIncarnationId());
            t.properties().forEach(p -> use.accept(p.propertyId()));
        }
        for (EdgeIr t : edges) {
            use.accept(t.typeId());
            use.accept(t.tableIncarnationId());
            t.properties().forEach(p -> use.accept(p.propertyId()));
        }
    }
}
