package dev.omnigraph.storage;

import java.util.Optional;

/**
 * A Lance branch ref with its native identity: the parent it was forked from, the parent version and the
 * creation time. A delete-and-recreate under the same name shows up as a different identity.
 */
public record LanceBranch(String name, Optional<String> parentBranch, long parentVersion, long createdAt) {
}
