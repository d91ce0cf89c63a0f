package dev.omnigraph.storage.manifest;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One graph commit to publish. {@code expectedPins} must name every table in {@code tableUpdates} (0 = not yet
 * registered). {@code expectedBranch} is checked against the branch's live identity (empty: only existence).
 * The commit id, actor and time are minted by the writer before any effect and never change on retry.
 * {@code idempotency}, when present, is written on the commit row by the same manifest transaction.
 * {@code schemaIdentity}, when present, is the accepted schema identity the stamp row records from this commit on
 * (a schema apply's target); empty keeps the one the manifest records.
 */
public record PublishRequest(String branch, ExpectedHead expectedHead, Optional<BranchIdentity> expectedBranch,
                             Map<String, Long> expectedPins, List<TableEntry> tableUpdates, String commitId,
                             Optional<String> mergedParentId, Optional<String> actorId, long createdAtMicros,
                             String operation, Optional<IdempotencyRecord> idempotency,
                             Optional<String> schemaIdentity) {
    /** A publish that keeps the recorded schema identity. */
    public PublishRequest(String branch, ExpectedHead expectedHead, Optional<BranchIdentity> expectedBranch,
                          Map<String, Long> expectedPins, List<TableEntry> tableUpdates, String commitId,
                          Optional<String> mergedParentId, Optional<String> actorId, long createdAtMicros,
                          String operation, Optional<IdempotencyRecord> idempotency) {
        this(branch, expectedHead, expectedBranch, expectedPins, tableUpdates, commitId, mergedParentId, actorId,
                createdAtMicros, operation, idempotency, Optional.empty());
    }

    /** A publish without an idempotency record. */
    public PublishRequest(String branch, ExpectedHead expectedHead, Optional<BranchIdentity> expectedBranch,
                          Map<String, Long> expectedPins, List<TableEntry> tableUpdates, String commitId,
                          Optional<String> mergedParentId, Optional<String> actorId, long createdAtMicros,
                          String operation) {
        this(branch, expectedHead, expectedBranch, expectedPins, tableUpdates, commitId, mergedParentId, actorId,
                createdAtMicros, operation, Optional.empty());
    }

    public PublishRequest {
        Objects.requireNonNull(branch, "branch");
        Objects.requireNonNull(expectedHead, "expectedHead");
        Objects.requireNonNull(expectedBranch, "expectedBranch");
        expectedPins = Map.copyOf(expectedPins);
        tableUpdates = List.copyOf(tableUpdates);
        Objects.requireNonNull(commitId, "commitId");
        Objects.requireNonNull(mergedParentId, "mergedParentId");
        Objects.requireNonNull(actorId, "actorId");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(idempotency, "idempotency");
        Objects.requireNonNull(schemaIdentity, "schemaIdentity");
        for (TableEntry update : tableUpdates) {
            if (!expectedPins.containsKey(update.tableKey())) {
                throw new IllegalArgumentException("publish of " + commitId + " updates " + update.tableKey()
                        + " without an expected pin");
            }
        }
    }

    /** This request, recording {@code identity} as the graph's accepted schema from its commit on. */
    public PublishRequest withSchemaIdentity(String identity) {
        return new PublishRequest(branch, expectedHead, expectedBranch, expectedPins, tableUpdates, commitId,
                mergedParentId, actorId, createdAtMicros, operation, idempotency, Optional.of(identity));
    }
}
