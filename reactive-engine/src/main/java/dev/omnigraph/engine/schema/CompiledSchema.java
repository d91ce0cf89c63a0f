package dev.omnigraph.engine.schema;

import java.util.List;
import java.util.Optional;

/**
 * A parsed and checked {@code .pg} schema, identity-free. Lists keep source declaration order;
 * {@link #shapeHash()} is independent of that order, of whitespace and of comments.
 */
public record CompiledSchema(List<InterfaceType> interfaces, List<NodeType> nodes, List<EdgeType> edges) {
    public CompiledSchema {
        interfaces = List.copyOf(interfaces);
        nodes = List.copyOf(nodes);
        edges = List.copyOf(edges);
    }

    /** Parses and checks {@code .pg} source; throws {@code ParseError} (source "schema") on any problem. */
    public static CompiledSchema compile(String source) {
        return SchemaCompiler.compile(source);
    }

    public Optional<InterfaceType> interfaceType(String name) {
        return interfaces.stream().filter(t -> t.name().equals(name)).findFirst();
    }

    public Optional<NodeType> node(String name) {
        return nodes.stream().filter(t -> t.name().equals(name)).findFirst();
    }

    public Optional<EdgeType> edge(String name) {
        return edges.stream().filter(t -> t.name().equals(name)).findFirst();
    }

    /** SHA-256 hex of the canonical shape rendering ({@link SchemaShapeHash#canonicalJson}). */
    public String shapeHash() {
        return SchemaShapeHash.hash(this);
    }
}
