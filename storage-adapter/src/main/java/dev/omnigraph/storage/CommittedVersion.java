package dev.omnigraph.storage;

import java.util.Objects;
import java.util.Optional;

/**
 * What a commit actually achieved: the version it produced, the identity Lance recorded for it, and (when the
 * storage knows it) the snapshot of that version, so a caller can keep it without opening the dataset again, and
 * the fragment with the highest id in it — the one an append or upsert just added, since Lance numbers new
 * fragments past every existing one — so a caller that wrote rows knows their addresses without a scan.
 * Compare with the planned {@link TransactionIdentity} via {@link #isExactly}.
 */
public record CommittedVersion(long version, TransactionIdentity transaction, long rowCount,
                               Optional<TableSnapshot> snapshot, Optional<NewestFragment> newestFragment) {

    /** The highest-numbered fragment of the committed version and its physical row count. */
    public record NewestFragment(int id, long physicalRows) {
        /** The address of row {@code offset} of this fragment (fragment id in the high 32 bits). */
        public long address(int offset) {
            return ((long) id << 32) | (offset & 0xFFFF_FFFFL);
        }
    }

    public CommittedVersion {
        Objects.requireNonNull(snapshot, "snapshot");
        Objects.requireNonNull(newestFragment, "newestFragment");
    }

    public CommittedVersion(long version, TransactionIdentity transaction, long rowCount,
                            Optional<TableSnapshot> snapshot) {
        this(version, transaction, rowCount, snapshot, Optional.empty());
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
