package dev.omnigraph.storage.manifest;

import dev.omnigraph.storage.LanceBranch;
import java.util.Optional;

/**
 * The native identity of a graph branch: for main a constant, for other branches the Lance ref's parent, fork
 * version and creation time. A branch deleted and recreated under the same name has a different identity, so a
 * write planned against the old one cannot land on the new one.
 */
public record BranchIdentity(String name, Optional<String> parent, long parentVersion, long createdAt) {
    public static final BranchIdentity MAIN = new BranchIdentity(GraphBranches.MAIN, Optional.empty(), 0, 0);

    public static BranchIdentity of(LanceBranch branch) {
        return new BranchIdentity(branch.name(), branch.parentBranch(), branch.parentVersion(), branch.createdAt());
    }

    @Override
    public String toString() {
        return name.equals(GraphBranches.MAIN) ? "main"
                : name + "(from " + parent.orElse("main") + "@" + parentVersion + ", created " + createdAt + ")";
    }
}
