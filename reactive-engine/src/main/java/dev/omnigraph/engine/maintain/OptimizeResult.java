package dev.omnigraph.engine.maintain;

import java.util.List;
import java.util.Optional;

/**
 * What one {@code optimize} did on main: the tables it compacted (published at their new versions by one commit),
 * the tables it left alone because their HEAD is not their published pin (uncovered drift: {@code repair}), and
 * the commit, empty when every table was already compact (no sidecar, no commit).
 */
public record OptimizeResult(List<Compacted> compacted, List<SkippedDrift> skipped, int alreadyCompact,
                             Optional<String> commitId) {
    public OptimizeResult {
        compacted = List.copyOf(compacted);
        skipped = List.copyOf(skipped);
    }

    /** One table compacted from {@code fromVersion} to {@code toVersion}, with its fragment counts. */
    public record Compacted(String tableKey, long fromVersion, long toVersion, int fragmentsBefore, int fragmentsAfter) {
    }

    /** A table skipped because versions no sidecar covers sit past its pin. */
    public record SkippedDrift(String tableKey, long published, long head) {
    }

    /**
     * The table keys whose data files this run rewrote: the seam for index maintenance, which must refresh the
     * indexes of exactly these tables (at {@link Compacted#toVersion()}) after the optimize commit.
     */
    public List<String> compactedTables() {
        return compacted.stream().map(Compacted::tableKey).toList();
    }
}
