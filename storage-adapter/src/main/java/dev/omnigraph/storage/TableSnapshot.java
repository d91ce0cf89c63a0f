package dev.omnigraph.storage;

import java.time.Instant;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One pinned version of a table ref, with the schema every batch written to it must be built from, its row count,
 * its fragment count (scan cost grows with fragments; maintenance compacts when it gets high), and the time Lance
 * recorded for that version ({@link Instant#EPOCH} when unknown).
 */
public record TableSnapshot(TableRef ref, long version, Schema schema, long rowCount, int fragmentCount,
                            Instant versionTime) {

    public TableSnapshot {
        Objects.requireNonNull(versionTime, "versionTime");
    }

    /** A snapshot whose version time is unknown; it never counts as {@link #sameVersionAs the same version}. */
    public TableSnapshot(TableRef ref, long version, Schema schema, long rowCount, int fragmentCount) {
        this(ref, version, schema, rowCount, fragmentCount, Instant.EPOCH);
    }

    /**
     * A version known from elsewhere (a manifest pin, a head just read), not opened: enough to scan or stage it,
     * since both open their version themselves. Its schema is unknown (null), as are its fragments (-1) and time.
     */
    public static TableSnapshot pinned(TableRef ref, long version, long rowCount) {
        return new TableSnapshot(ref, version, null, rowCount, -1);
    }

    /**
     * True when {@code other} is this very version of this very dataset. The version number alone is not enough:
     * a branch deleted and created again restarts its numbering, so the version's recorded time must match too.
     */
    public boolean sameVersionAs(TableSnapshot other) {
        return other != null && !versionTime.equals(Instant.EPOCH) && ref.equals(other.ref) && version == other.version
                && versionTime.equals(other.versionTime) && rowCount == other.rowCount
                && fragmentCount == other.fragmentCount;
    }
}
