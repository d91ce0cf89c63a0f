package dev.omnigraph.storage;

import java.util.Objects;

/**
 * One index to build on one column. {@code name} is the index's name in Lance, which is how an existing index is
 * recognised (Lance 0.39 Java lists indexes by name only); {@code partitions} is used by {@link Kind#VECTOR} only
 * (IVF partitions of an IVF_FLAT index, searched with every partition probed unless a query asks otherwise).
 */
public record IndexSpec(String name, String column, Kind kind, int partitions) {
    /** The index kinds the engine builds. */
    public enum Kind {
        /** Sorted scalar index: equality, {@code IN} and range filters. */
        BTREE,
        /** Bitmap per distinct value: low-cardinality columns (enums, booleans). */
        BITMAP,
        /** Full-text (inverted) index on a Utf8 column. */
        INVERTED,
        /** IVF_FLAT vector index on a FixedSizeList&lt;Float32&gt; column, L2 distance. */
        VECTOR
    }

    public IndexSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(column, "column");
        Objects.requireNonNull(kind, "kind");
        SqlLiterals.requireIdentifier(column);
        if (!name.matches("[A-Za-z0-9_]{1,200}")) {
            throw new IllegalArgumentException("index name must be 1-200 ASCII letters, digits or '_': " + name);
        }
        if (kind == Kind.VECTOR && partitions < 1) {
            throw new IllegalArgumentException("a vector index needs at least one partition: " + partitions);
        }
    }

    /**
     * The non-NULL values of the column the index needs before it can be built: text to tokenize (an inverted segment
     * over text that is all NULL has no partition, which Lance refuses), a vector per IVF partition to train; none for
     * a BTREE.
     */
    public long valuesNeeded() {
        return switch (kind) {
            case INVERTED -> 1;
            case VECTOR -> partitions;
            default -> 0;
        };
    }
}
