package dev.omnigraph.engine.maintain;

import java.util.List;
import java.util.Optional;

/**
 * What one {@code optimize} did on a branch: the tables it compacted and the indexes it built (all published at
 * their new versions by one commit), the tables it left alone because their HEAD is not their published pin
 * (uncovered drift: {@code repair}), and the commit, empty when every table was already compact and fully indexed
 * (no sidecar, no commit).
 */
public record OptimizeResult(List<Compacted> compacted, List<SkippedDrift> skipped, int alreadyCompact,
                             Optional<String> commitId, List<Indexed> indexed) {
    public OptimizeResult {
        compacted = List.copyOf(compacted);
        skipped = List.copyOf(skipped);
        indexed = List.copyOf(indexed);
    }

    /** The indexes built on one table after its compaction, in build order (created if missing, else rebuilt). */
    public record Indexed(String tableKey, List<String> indexes) {
        public Indexed {
            indexes = List.copyOf(indexes);
        }
    }

    /** One table compacted from {@code fromVersion} to {@code toVersion}, with its fragment counts. */
    public record Compacted(String tableKey, long fromVersion, long toVersion, int fragmentsBefore, int fragmentsAfter) {
    }

    /** A table skipped because versions no sidecar covers sit past its pin. */
    public record SkippedDrift(String tableKey, long published, long head) {
    }

    /** The table keys whose data files this run rewrote. */
    public List<String> compactedTables() {
        return compacted.stream().map(Compacted::tableKey).toList();
    }
}
