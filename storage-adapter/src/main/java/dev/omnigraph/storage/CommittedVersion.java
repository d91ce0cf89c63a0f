package dev.omnigraph.storage;

import java.util.Objects;
import java.util.Optional;

/**
 * What a commit actually achieved: the version it produced, the identity Lance recorded for it, and (when the
 * storage knows it) the snapshot of that version, so a caller can keep it without opening the dataset again.
 * Compare with the planned {@link TransactionIdentity} via {@link #isExactly}.
 */
public record CommittedVersion(long version, TransactionIdentity transaction, long rowCount,
                               Optional<TableSnapshot> snapshot) {

    public CommittedVersion {
        Objects.requireNonNull(snapshot, "snapshot");
    }

    /** A commit whose resulting snapshot is not at hand. */
    public CommittedVersion(long version, TransactionIdentity transaction, long rowCount) {
        this(version, transaction, rowCount, Optional.empty());
    }

    /** True when this commit is the planned transaction landing directly on its read version (no rebase). */
    public boolean isExactly(TransactionIdentity planned) {
        return version == planned.readVersion() + 1 && transaction.equals(planned);
    }
}
