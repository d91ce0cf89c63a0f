package dev.omnigraph.storage;

import com.lancedb.lance.Dataset;
import com.lancedb.lance.compaction.CompactionOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Reading a table's version history without tripping Lance's JNI aborts, and the one definition of what
 * compaction writes. Lance 0.39 aborts the JVM when Java reads the transaction of an index build or of a branch's
 * first (Clone) version, so those are recognised first — an index build by its index list differing from the
 * previous version's, a fork by the branch's recorded parent version — and their transactions are never read.
 */
public final class TableHistory {
    /** The compaction every maintenance path runs: default fragment size, deletions materialised past 10%. */
    static final CompactionOptions COMPACTION = CompactionOptions.builder().withMaterializeDeletionsThreshold(0.1f).build();

    /** The operations a compaction commits: the reserve versions its tasks take, then the rewrite. */
    private static final Set<String> MAINTENANCE = Set.of("ReserveFragments", "Rewrite");

    private TableHistory() {
    }

    /** True when {@code operation} only re-lays out existing rows (the table's content is unchanged). */
    public static boolean isMaintenance(String operation) {
        return MAINTENANCE.contains(operation);
    }

    /** The operation of every version in {@code (after, upTo]}; {@code latest} is opened at {@code upTo}. */
    static List<String> operations(Dataset latest, long after, long upTo, OptionalLong forkVersion) {
        List<String> out = new ArrayList<>();
        List<String> previous = after < 1 ? List.of() : indexes(latest, after);
        for (long version = Math.max(1, after + 1); version <= upTo; version++) {
            try (Dataset at = latest.checkoutVersion(version)) {
                List<String> indexes = at.listIndexes().stream().sorted().toList();
                if (forkVersion.isPresent() && version == forkVersion.getAsLong()) {
                    out.add("Clone");
                } else if (!indexes.equals(previous)) {
                    out.add("CreateIndex");
                } else {
                    out.add(at.readTransaction().map(tx -> tx.operation().name()).orElse("Unknown"));
                }
                previous = indexes;
            }
        }
        return List.copyOf(out);
    }

    private static List<String> indexes(Dataset latest, long version) {
        try (Dataset at = latest.checkoutVersion(version)) {
            return at.listIndexes().stream().sorted().toList();
        }
    }
}
