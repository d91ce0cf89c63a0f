package dev.omnigraph.engine.schema;

import dev.omnigraph.engine.schema.SchemaIr.PropertyIr;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The accepted schema joined with its identities: for every node and edge type, its table key, dataset path
 * and Arrow schema. Immutable; a schema apply produces a new catalog.
 */
public final class Catalog {
    private final SchemaIr ir;
    private final CompiledSchema schema;
    private final Map<String, CatalogTable> byKey = new LinkedHashMap<>();
    private final Map<String, NodeTable> nodes = new LinkedHashMap<>();
    private final Map<String, EdgeTable> edges = new LinkedHashMap<>();
    /** Memo of {@link #irHash()}; a benign race (every thread computes the same string). */
    private volatile String irHash;

    private Catalog(SchemaIr ir, CompiledSchema schema) {
        this.ir = ir;
        this.schema = schema;
    }

    /**
     * This catalog, where type names are also looked up in {@code nodeAliases} / {@code edgeAliases} (taking
     * precedence): a time-travel read resolves today's name of a renamed type to that type's table of the time
     * ({@link PinnedCatalog}). Tables, keys and schema are this catalog's.
     */
    Catalog withAliases(Map<String, NodeTable> nodeAliases, Map<String, EdgeTable> edgeAliases) {
        Catalog c = new Catalog(ir, schema);
        c.byKey.putAll(byKey);
        c.nodes.putAll(nodes);
        c.nodes.putAll(nodeAliases);
        c.edges.putAll(edges);
        c.edges.putAll(edgeAliases);
        return c;
    }

    /**
     * @throws IllegalArgumentException if the IR and the compiled schema do not describe the same types and
     *                                  properties (a sign of mismatched {@code _schema.pg} / {@code _schema.ir.json})
     */
    public static Catalog build(SchemaIr ir, CompiledSchema schema) {
        Catalog c = new Catalog(ir, schema);
        sameNames("node", ir.nodes().stream().map(SchemaIr.NodeIr::name).collect(Collectors.toSet()),
                schema.nodes().stream().map(NodeType::name).collect(Collectors.toSet()));
        sameNames("edge", ir.edges().stream().map(SchemaIr.EdgeIr::name).collect(Collectors.toSet()),
                schema.edges().stream().map(EdgeType::name).collect(Collectors.toSet()));
        List<NodeType> sortedNodes = new ArrayList<>(schema.nodes());
        sortedNodes.sort(java.util.Comparator.comparing(NodeType::name));
        for (NodeType n : sortedNodes) {
            SchemaIr.NodeIr nir = ir.node(n.name()).orElseThrow();
            Map<String, Long> ids = propertyIds("node " + n.name(), nir.properties(), n.properties());
            NodeTable t = new NodeTable(n, nir.typeId(), nir.tableIncarnationId(), ids, ArrowSchemas.nodeSchema(n, ids));
            c.nodes.put(n.name(), t);
            c.byKey.put(t.tableKey(), t);
        }
        List<EdgeType> sortedEdges = new ArrayList<>(schema.edges());
        sortedEdges.sort(java.util.Comparator.comparing(EdgeType::name));
        for (EdgeType e : sortedEdges) {
            SchemaIr.EdgeIr eir = ir.edge(e.name()).orElseThrow();
            Map<String, Long> ids = propertyIds("edge " + e.name(), eir.properties(), e.properties());
            EdgeTable t = new EdgeTable(e, eir.typeId(), eir.tableIncarnationId(), ids, ArrowSchemas.edgeSchema(e, ids));
            c.edges.put(e.name(), t);
            c.byKey.put(t.tableKey(), t);
        }
        return c;
    }

    private static void sameNames(String kind, Set<String> inIr, Set<String> inSchema) {
        if (!inIr.equals(inSchema))
            throw new IllegalArgumentException("schema IR " + kind + " types " + inIr + " do not match the schema's " + inSchema);
    }

    private static Map<String, Long> propertyIds(String owner, List<PropertyIr> irProps, List<Property> props) {
        Map<String, Long> ids = new LinkedHashMap<>();
        for (PropertyIr p : irProps) ids.put(p.name(), p.propertyId());
        Set<String> names = props.stream().map(Property::name).collect(Collectors.toSet());
        if (!ids.keySet().equals(names))
            throw new IllegalArgumentException("schema IR properties of " + owner + " " + ids.keySet()
                    + " do not match the schema's " + names);
        return ids;
    }

    public SchemaIr ir() {
        return ir;
    }

    /** {@link SchemaIr#irHash()} of {@link #ir()}, computed once: every read compares it with its snapshot's stamp. */
    public String irHash() {
        String hash = irHash;
        if (hash == null) irHash = hash = ir.irHash();
        return hash;
    }

    public CompiledSchema schema() {
        return schema;
    }

    /** Node tables by type name, then edge tables by type name. */
    public List<CatalogTable> tables() {
        return List.copyOf(byKey.values());
    }

    public Optional<CatalogTable> table(String tableKey) {
        return Optional.ofNullable(byKey.get(tableKey));
    }

    public Optional<NodeTable> node(String typeName) {
        return Optional.ofNullable(nodes.get(typeName));
    }

    public Optional<EdgeTable> edge(String typeName) {
        return Optional.ofNullable(edges.get(typeName));
    }

    public Map<String, NodeTable> nodes() {
        return Collections.unmodifiableMap(nodes);
    }

    public Map<String, EdgeTable> edges() {
        return Collections.unmodifiableMap(edges);
    }

    /**
     * The id of a keyed node from its property values (see {@link KeyIds#derive(NodeTable, Map)}).
     *
     * @throws IllegalArgumentException for an unknown or unkeyed node type
     */
    public String deriveNodeId(String nodeType, Map<String, ?> values) {
        NodeTable t = node(nodeType).orElseThrow(() -> new IllegalArgumentException("unknown node type " + nodeType));
        return KeyIds.derive(t, values);
    }
}
