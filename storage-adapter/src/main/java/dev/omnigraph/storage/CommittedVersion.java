package dev.omnigraph.storage;

/**
 * What a commit actually achieved: the version it produced and the identity Lance recorded for it.
 * Compare with the planned {@link TransactionIdentity} via {@link #isExactly}.
 */
public record CommittedVersion(long version, TransactionIdentity transaction, long rowCount) {

    /** True when this commit is the planned transaction landing directly on its read version (no rebase). */
    public boolean isExactly(TransactionIdentity planned) {
        return version == planned.readVersion() + 1 && transaction.equals(planned);
    }
}
