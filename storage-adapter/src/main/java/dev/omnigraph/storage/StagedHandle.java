package dev.omnigraph.storage;

/**
 * A staged, uncommitted Lance transaction. Opaque: callers only read its identity, which is fixed before
 * commit and is what recovery uses to recognise the effect. Spent by one commit or one discard.
 */
public interface StagedHandle {
    TableRef ref();

    /** {@code (readVersion, uuid)} of the staged transaction. */
    TransactionIdentity identity();

    /** The Lance operation staged: Append, Update, Delete or Overwrite. */
    String operation();

    /** True once committed or discarded: a discard then has nothing to release and makes no storage call. */
    boolean spent();

    /**
     * Rows the commit adds net (written minus deleted), when staging knew it: a commit landing exactly on the
     * read version then has the read version's row count plus this. Empty when unknown.
     */
    default java.util.OptionalLong rowDelta() {
        return java.util.OptionalLong.empty();
    }

}
