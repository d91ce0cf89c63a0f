package dev.omnigraph.engine.merge;

import dev.omnigraph.storage.manifest.GraphCommit;
import java.util.Optional;

/**
 * The result of {@code branch merge}: the outcome, the merge commit on the target (absent when up to date or when
 * the source's changes were net zero), the entities it wrote, and, when the source deletion was asked for, whether
 * it happened and why not.
 */
public record MergeResult(String source, String target, MergeOutcome outcome, Optional<GraphCommit> commit,
                          long affectedNodes, long affectedEdges, Optional<Boolean> branchDeleted,
                          Optional<String> branchDeleteError) {

    MergeResult withDeletion(boolean deleted, Optional<String> error) {
        return new MergeResult(source, target, outcome, commit, affectedNodes, affectedEdges, Optional.of(deleted), error);
    }
}
