package dev.omnigraph.recovery;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One row of the recovery audit log: what recovery did with one sidecar. {@code graphCommitId} is the commit the
 * recovery published (the original commit when rolled forward, the rollback commit when rolled back), empty
 * when nothing had landed and nothing was published.
 */
public record RecoveryRecord(Optional<String> graphCommitId, Kind kind, Optional<String> recoveryForActor,
                             String operationId, String sidecarWriterKind, List<TableOutcome> tables, Instant createdAt) {
    public enum Kind { RolledForward, RolledBack, OrphanedBranchDiscarded }

    public RecoveryRecord {
        tables = List.copyOf(tables);
    }

    /** How recovery moved one table: from its expected pin to the version it published (equal when untouched). */
    public record TableOutcome(String tableKey, long fromVersion, long toVersion) {
    }
}
