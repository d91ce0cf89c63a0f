package dev.omnigraph.engine.schema;

import dev.omnigraph.storage.IndexSpec;
import dev.omnigraph.storage.IndexSpec.Kind;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The indexes a table's schema implies, and which of them a table still lacks. Pure. Always a BTREE on
 * {@code id} (and on an edge's {@code src} and {@code dst}), so key lookups, endpoint checks and traversal
 * frontiers ({@code id IN (…)}) use it. For each {@code @index} property, the kind follows its type as the
 * reference dispatches it: a BTREE for enums, booleans and other orderable scalars, an inverted (full-text) index for
 * free text, and an IVF vector index for vectors once the table has {@link #MIN_VECTOR_ROWS} rows to train it
 * (below that a nearest search is exact anyway). Lists and blobs get none. Index names are fixed by column and kind
 * ({@code og_btree_id}), so an existing index is recognised by name. (Bitmaps, which earlier builds made for enums
 * and booleans, cannot be built as staged segments in Lance 7.0; an old one is left in place and unused by plans.)
 */
public final class IndexPlan {
    /** Rows a table needs before its vectors are indexed (k-means training wants a sample per partition). */
    public static final long MIN_VECTOR_ROWS = 256;
    /** The IVF partition cap (a million rows get about a thousand partitions of a thousand rows). */
    static final int MAX_PARTITIONS = 1024;
    /** The key and endpoint columns every node/edge dataset has. */
    private static final String ID = "id";
    private static final String SRC = "src";
    private static final String DST = "dst";

    private IndexPlan() {
    }

    /** Every index {@code table} should have at {@code rowCount} rows, in build order. */
    public static List<IndexSpec> required(CatalogTable table, long rowCount) {
        Map<String, IndexSpec> byName = new LinkedHashMap<>();
        add(byName, new IndexSpec(name(Kind.BTREE, ID), ID, Kind.BTREE, 0));
        if (table instanceof EdgeTable) {
            add(byName, new IndexSpec(name(Kind.BTREE, SRC), SRC, Kind.BTREE, 0));
            add(byName, new IndexSpec(name(Kind.BTREE, DST), DST, Kind.BTREE, 0));
        }
        for (String column : indexedProperties(table)) {
            property(table, column).flatMap(p -> spec(p, rowCount)).ifPresent(spec -> add(byName, spec));
        }
        return List.copyOf(byName.values());
    }

    /** The required indexes whose names {@code existing} does not list, in build order. */
    public static List<IndexSpec> missing(CatalogTable table, long rowCount, Collection<String> existing) {
        return required(table, rowCount).stream().filter(spec -> !existing.contains(spec.name())).toList();
    }

    /** The name of the vector index of {@code column} (what a nearest search looks for). */
    public static String vectorIndexName(String column) {
        return name(Kind.VECTOR, column);
    }

    /** The name of the inverted index of {@code column} (what a full-text query looks for). */
    public static String invertedIndexName(String column) {
        return name(Kind.INVERTED, column);
    }

    static String name(Kind kind, String column) {
        return "og_" + kind.name().toLowerCase(java.util.Locale.ROOT) + "_" + column;
    }

    private static void add(Map<String, IndexSpec> byName, IndexSpec spec) {
        byName.putIfAbsent(spec.name(), spec);
    }

    private static Optional<IndexSpec> spec(Property property, long rowCount) {
        String column = property.name();
        PropertyType type = property.type();
        if (type instanceof PropertyType.EnumOf) {
            return Optional.of(new IndexSpec(name(Kind.BTREE, column), column, Kind.BTREE, 0));
        }
        if (type instanceof PropertyType.VectorOf) {
            if (rowCount < MIN_VECTOR_ROWS) {
                return Optional.empty();
            }
            return Optional.of(new IndexSpec(name(Kind.VECTOR, column), column, Kind.VECTOR, partitions(rowCount)));
        }
        if (type instanceof PropertyType.Scalar scalar) {
            ScalarKind kind = scalar.kind();
            return switch (kind) {
                case STRING -> Optional.of(new IndexSpec(name(Kind.INVERTED, column), column, Kind.INVERTED, 0));
                case BLOB -> Optional.empty();
                default -> Optional.of(new IndexSpec(name(Kind.BTREE, column), column, Kind.BTREE, 0));
            };
        }
        return Optional.empty(); // lists: no index kind fits an element-wise filter yet
    }

    /**
     * IVF partitions a nearest search probes on a table of {@code rowCount} rows: a fifth of them, at least 20 (all of
     * them up to 400 rows... and 20 of about 100 at 10,000), chosen so recall@10 stays at or above 0.95 on the
     * seeded corpus of {@code AnnRecallTest}; the reported distances are exact either way.
     */
    public static int probes(long rowCount) {
        int partitions = partitions(rowCount);
        return Math.min(partitions, Math.max(20, (partitions + 4) / 5));
    }

    /** IVF partitions for {@code rowCount} rows: about the square root, so partitions and their sizes grow together. */
    public static int partitions(long rowCount) {
        return (int) Math.max(1, Math.min(MAX_PARTITIONS, Math.round(Math.sqrt((double) rowCount))));
    }

    private static List<String> indexedProperties(CatalogTable table) {
        List<Constraint> constraints = table instanceof NodeTable node ? node.type().constraints()
                : ((EdgeTable) table).type().constraints();
        List<String> columns = new ArrayList<>();
        constraints.stream().filter(Constraint.Index.class::isInstance)
                .forEach(index -> index.properties().forEach(column -> {
                    if (!columns.contains(column)) columns.add(column);
                }));
        return columns;
    }

    private static Optional<Property> property(CatalogTable table, String name) {
        return table instanceof NodeTable node ? node.type().property(name) : ((EdgeTable) table).type().property(name);
    }
}
