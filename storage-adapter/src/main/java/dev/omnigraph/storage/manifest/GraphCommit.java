package dev.omnigraph.storage.manifest;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One node of the commit DAG. {@code parentIds} is empty for genesis, one id normally, two for a merge (target
 * head first). {@code manifestVersion} is the {@code __manifest} version this commit's publish produced on
 * {@code branch} (empty = main); reading the manifest there is reading the graph as of this commit.
 */
public record GraphCommit(String id, List<String> parentIds, Optional<String> branch, Optional<String> actorId,
                          long createdAtMicros, String operation, List<TableDelta> deltas, long manifestVersion) {
    public GraphCommit {
        Objects.requireNonNull(id, "id");
        parentIds = List.copyOf(parentIds);
        deltas = List.copyOf(deltas);
        Objects.requireNonNull(branch, "branch");
        Objects.requireNonNull(actorId, "actorId");
        Objects.requireNonNull(operation, "operation");
    }

    public String branchName() {
        return branch.orElse(GraphBranches.MAIN);
    }
}
