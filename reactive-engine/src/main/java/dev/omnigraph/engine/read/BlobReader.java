package dev.omnigraph.engine.read;

import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.Property;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import dev.omnigraph.storage.BlobRead;
import dev.omnigraph.storage.BlobWindow;
import dev.omnigraph.storage.SqlLiterals;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.BlobRangeNotSatisfiable;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * Reads the bytes of one Blob property of one entity at a pinned state: the only way Blob bytes leave the engine
 * besides export (queries never read Blob columns, T24). Through {@link TableStorage#readBlob}: one key lookup on
 * {@code id}, then only the bytes asked for (a plain column of an earlier build is read whole and sliced).
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
     * The bytes {@code window} picks from Blob property {@code property} of entity {@code id}, and the blob's size:
     * one key lookup on {@code id}, then (for a blob-encoded column) only those bytes are read.
     *
     * @param typeName a node type, or an edge type (matched ignoring case, as in the load format)
     * @throws BadRequest for an unknown type or a property that is not a Blob
     * @return the slice; {@link NotFound} when the entity does not exist or its Blob is NULL,
     *         {@link BlobRangeNotSatisfiable} when the window starts past the end
     */
    public Mono<BlobRead.Slice> read(ManifestState state, String typeName, String id, String property, BlobWindow window) {
        CatalogTable table = table(typeName);
        List<Property> props = table instanceof NodeTable n ? n.type().properties() : ((EdgeTable) table).type().properties();
        Property p = props.stream().filter(x -> x.name().equals(property)).findFirst().orElseThrow(() ->
                new BadRequest("type " + table.typeName() + " has no property '" + property + "'"));
        if (!(p.type() instanceof PropertyType.Scalar s && s.kind() == ScalarKind.BLOB))
            throw new BadRequest(table.typeName() + "." + property + " is " + p.type().spelling() + ", not a Blob");
        String what = table.typeName() + " " + id;
        Optional<TableEntry> entry = state.table(table.tableKey());
        if (entry.isEmpty())
            return Mono.error(new NotFound("entity", id, "no " + what + " at this snapshot"));
        if (!SqlLiterals.pushable(id)) throw new BadRequest("id is too long to look up");
        TableEntry e = entry.get();
        TableSnapshot snapshot = TableSnapshot.pinned(new TableRef(root + "/" + e.location(), e.lanceBranch()), e.version(),
                e.rowCount());
        return tables.readBlob(snapshot, "id", id, property, window).flatMap(found -> {
            if (found instanceof BlobRead.Slice slice) return Mono.just(slice);
            if (found instanceof BlobRead.Unsatisfiable u) {
                return Mono.error(new BlobRangeNotSatisfiable(u.size(), "the requested range of " + what + "."
                        + property + " starts past its end (" + u.size() + " bytes)"));
            }
            return Mono.error(found instanceof BlobRead.NullBlob
                    ? new NotFound("blob", id, what + " has no " + property + " (NULL)")
                    : new NotFound("entity", id, "no " + what + " at this snapshot"));
        });
    }

    private CatalogTable table(String typeName) {
        Optional<? extends CatalogTable> node = catalog.node(typeName);
        if (node.isPresent()) return node.get();
        for (EdgeTable e : catalog.edges().values())
            if (e.typeName().toLowerCase(Locale.ROOT).equals(typeName.toLowerCase(Locale.ROOT))) return e;
        throw new BadRequest("unknown type '" + typeName + "'");
    }
}
