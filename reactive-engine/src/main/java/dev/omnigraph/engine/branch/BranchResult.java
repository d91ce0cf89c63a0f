package dev.omnigraph.engine.branch;

import dev.omnigraph.storage.manifest.BranchIdentity;
import java.util.List;

/** What a branch control did. */
public sealed interface BranchResult {
    /** Branch {@code identity} now exists, forked from {@code from} (a branch name or a commit id). */
    record Created(BranchIdentity identity, String from) implements BranchResult {
    }

    /**
     * Branch {@code name} no longer exists. {@code leftovers} names table forks that could not be reclaimed now
     * (unreachable garbage: {@code repair} reports them, cleanup reclaims them later).
     */
    record Deleted(String name, List<String> leftovers) implements BranchResult {
        public Deleted {
            leftovers = List.copyOf(leftovers);
        }
    }
}
