package dev.omnigraph.storage;

import org.lance.Dataset;
import org.lance.compaction.CompactionOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Reading a table's version history without tripping Lance's JNI abort, and the one definition of what compaction
 * writes. Lance 7.0 still aborts the JVM when Java reads the transaction of a branch's first (Clone) version, so that
 * version is recognised by the branch's recorded parent version and never read; every other version, index builds
 * included (0.39 aborted on those too; 7.0 reads them), is read.
 */
public final class TableHistory {
    /** The compaction every maintenance path runs: default fragment size, deletions materialised past 10%. */
    static final CompactionOptions COMPACTION = CompactionOptions.builder().withMaterializeDeletionsThreshold(0.1f)
            .withTargetRowsPerFragment(TieredCompaction.CEILING_ROWS).build();

    /** The operations a compaction commits: the reserve versions its tasks take, then the rewrite. */
    private static final Set<String> MAINTENANCE = Set.of("ReserveFragments", "Rewrite");

    private TableHistory() {
    }

    /** True when {@code operation} only re-lays out existing rows (the table's content is unchanged). */
    public static boolean isMaintenance(String operation) {
        return MAINTENANCE.contains(operation);
    }

    /** The operation of every version in {@code (after, upTo]} of {@code ref}; {@code latest} is opened at {@code upTo}. */
    static List<String> operations(TableRef ref, Dataset latest, long after, long upTo, OptionalLong forkVersion) {
        return walk(ref, latest::checkoutVersion, after, upTo, forkVersion,
                (version, tx) -> tx.map(t -> t.operation().name()).orElse("Unknown"), version -> "Clone");
    }

    /**
     * The transaction of every version in {@code (after, upTo]} with the value of property {@code key}; a fork version
     * (never read) is an empty entry. {@code open} opens one version of the ref (a branch's
     * versions through its own tree).
     */
    static List<java.util.Optional<TransactionMark>> marks(TableRef ref, java.util.function.LongFunction<Dataset> open,
                                                         long after, long upTo, OptionalLong forkVersion, String key) {
        return walk(ref, open, after, upTo, forkVersion, (version, tx) -> tx.map(t -> new TransactionMark(version,
                        TransactionIdentity.of(t),
                        t.transactionProperties().map(props -> props.get(key)))),
                version -> java.util.Optional.<TransactionMark>empty());
    }

    /** The identity of the transaction that made {@code version}; empty for a fork (never read). */
    static java.util.Optional<TransactionIdentity> identityAt(TableRef ref, java.util.function.LongFunction<Dataset> open,
                                                             long version, OptionalLong forkVersion) {
        return walk(ref, open, version - 1, version, forkVersion,
                (at, tx) -> tx.map(TransactionIdentity::of),
                at -> java.util.Optional.<TransactionIdentity>empty())
                .get(0);
    }

    /** The one walk over versions that never reads a transaction Lance would abort on. */
    private static <T> List<T> walk(TableRef ref, java.util.function.LongFunction<Dataset> open, long after, long upTo,
                                    OptionalLong forkVersion,
                                    java.util.function.BiFunction<Long, java.util.Optional<org.lance.Transaction>, T> read,
                                    java.util.function.LongFunction<T> clone) {
        List<T> out = new ArrayList<>();
        for (long version = Math.max(1, after + 1); version <= upTo; version++) {
            if (forkVersion.isPresent() && version == forkVersion.getAsLong()) {
                out.add(clone.apply(version));
            } else {
                try (Dataset at = open.apply(version)) {
                    out.add(read.apply(version, at.readTransaction()));
                }
            }
        }
        return List.copyOf(out);
    }
}
