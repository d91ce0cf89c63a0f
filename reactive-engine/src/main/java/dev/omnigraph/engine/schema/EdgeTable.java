package dev.omnigraph.engine.schema;

import java.util.Map;
import org.apache.arrow.vector.types.pojo.Schema;

/** Catalog entry of an edge type. */
public record EdgeTable(EdgeType type, long typeId, long incarnationId, Map<String, Long> propertyIds,
                        Schema arrowSchema) implements CatalogTable {
    public EdgeTable {
        propertyIds = Map.copyOf(propertyIds);
    }

    @Override
    public String typeName() {
        return type.name();
    }

    @Override
    public String tableKey() {
        return "edge:" + type.name();
    }

    @Override
    public String datasetPath() {
        return CatalogTable.path("edges", typeId, incarnationId);
    }
}
