package dev.omnigraph.engine.read;

import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.Property;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import dev.omnigraph.storage.SqlLiterals;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.manifest.ManifestState;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * Reads the bytes of one Blob property of one entity at a pinned state: the only way Blob bytes leave the engine
 * besides export (queries never read Blob columns, T24). One key lookup on {@code id} reading two columns.
 */
public final class BlobReader {
    private final TableStorage tables;
    private final String root;
    private final Catalog catalog;

    public BlobReader(TableStorage tables, String root, Catalog catalog) {
        this.tables = tables;
        this.root = root;
        this.catalog = catalog;
    }

    /**
     * @param typeName a node type, or an edge type (matched ignoring case, as in the load format)
     * @throws BadRequest for an unknown type or a property that is not a Blob
     * @return the bytes; {@link NotFound} when the entity does not exist or its Blob is NULL
     */
    public Mono<byte[]> read(ManifestState state, String typeName, String id, String property) {
        CatalogTable table = table(typeName);
        List<Property> props = table instanceof NodeTable n ? n.type().properties() : ((EdgeTable) table).type().properties();
        Property p = props.stream().filter(x -> x.name().equals(property)).findFirst().orElseThrow(() ->
                new BadRequest("type " + table.typeName() + " has no property '" + property + "'"));
        if (!(p.type() instanceof PropertyType.Scalar s && s.kind() == ScalarKind.BLOB))
            throw new BadRequest(table.typeName() + "." + property + " is " + p.type().spelling() + ", not a Blob");
        String what = table.typeName() + " " + id;
        if (state.table(table.tableKey()).isEmpty())
            return Mono.error(new NotFound("entity", id, "no " + what + " at this snapshot"));
        TableReader reader = new TableReader(tables, root, state);
        String where = SqlLiterals.pushable(id) ? SqlLiterals.inList("id", List.of(id)) : null;
        if (where == null) throw new BadRequest("id is too long to look up");
        return reader.scan(table, where, List.of("id", property), 16)
                .filter(row -> id.equals(row.get("id")))
                .next()
                .switchIfEmpty(Mono.error(() -> new NotFound("entity", id, "no " + what + " at this snapshot")))
                .flatMap(row -> Mono.justOrEmpty(Optional.ofNullable((byte[]) row.get(property))))
                .switchIfEmpty(Mono.error(() -> new NotFound("blob", id, what + " has no " + property + " (NULL)")));
    }

    private CatalogTable table(String typeName) {
        Optional<? extends CatalogTable> node = catalog.node(typeName);
        if (node.isPresent()) return node.get();
        for (EdgeTable e : catalog.edges().values())
            if (e.typeName().toLowerCase(Locale.ROOT).equals(typeName.toLowerCase(Locale.ROOT))) return e;
        throw new BadRequest("unknown type '" + typeName + "'");
    }
}
