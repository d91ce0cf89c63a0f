package dev.omnigraph.engine.schema;

import java.util.Map;
import org.apache.arrow.vector.types.pojo.Schema;

/** One node or edge dataset as the catalog sees it: identity, location and physical schema. */
public sealed interface CatalogTable permits NodeTable, EdgeTable {

    String typeName();

    long typeId();

    long incarnationId();

    /** Property name → stable property id. */
    Map<String, Long> propertyIds();

    /** Arrow schema to create the dataset with (and to build batches from when no dataset exists yet). */
    Schema arrowSchema();

    /** {@code node:<Type>} or {@code edge:<Type>}: the manifest's table key. */
    String tableKey();

    /** Path relative to the graph root: {@code nodes/{type_id:016x}-{incarnation:016x}} (or {@code edges/…}). */
    String datasetPath();

    static String path(String dir, long typeId, long incarnationId) {
        return dir + "/" + String.format("%016x-%016x", typeId, incarnationId);
    }
}
