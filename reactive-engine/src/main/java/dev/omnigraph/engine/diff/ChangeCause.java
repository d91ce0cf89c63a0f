package dev.omnigraph.engine.diff;

import dev.omnigraph.storage.manifest.GraphCommit;
import java.util.Optional;

/** The commit a block of changes came from, stated once per block. {@code authoredAt} is µs since the epoch. */
public record ChangeCause(String graphCommitId, Optional<String> parentCommitId, Optional<String> mergedParentCommitId,
                          String authoredBranch, Optional<String> actorId, long authoredAt) {

    public static ChangeCause of(GraphCommit commit) {
        return new ChangeCause(commit.id(), commit.parentIds().stream().findFirst(),
                commit.parentIds().stream().skip(1).findFirst(), commit.branchName(), commit.actorId(),
                commit.createdAtMicros());
    }
}
