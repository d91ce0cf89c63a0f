package dev.omnigraph.engine.schema;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.arrow.vector.types.pojo.Schema;

/** Catalog entry of a node type. */
public record NodeTable(NodeType type, long typeId, long incarnationId, Map<String, Long> propertyIds,
                        Schema arrowSchema) implements CatalogTable {
    public NodeTable {
        propertyIds = Map.copyOf(propertyIds);
    }

    @Override
    public String typeName() {
        return type.name();
    }

    @Override
    public String tableKey() {
        return "node:" + type.name();
    }

    @Override
    public String datasetPath() {
        return CatalogTable.path("nodes", typeId, incarnationId);
    }

    /** The @key properties ordered by stable property id (the composite id order), or empty when unkeyed. */
    public List<Property> keyPropertiesByStableId() {
        return type.key().map(k -> k.properties().stream()
                .map(n -> type.property(n).orElseThrow())
                .sorted(Comparator.comparingLong((Property p) -> propertyIds.get(p.name())))
                .toList()).orElse(List.of());
    }

    /** The node id for these property values; see {@link KeyIds#derive(NodeTable, Map)}. */
    public String deriveId(Map<String, ?> values) {
        return KeyIds.derive(this, values);
    }

    /** {@link #deriveId} with the key resolved once, for many ids; only for a keyed type. */
    public Function<Map<String, ?>, String> idDeriver() {
        return KeyIds.deriver(type, propertyIds);
    }
}
