package dev.omnigraph.engine.cleanup;

import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.ManifestState;

/**
 * A graph state cleanup must keep readable: {@code branch} is the live branch whose retention asked for it (a
 * kept commit may be an inherited one, so {@code state.branch()} can differ), {@code current} whether it is that
 * branch's current state.
 */
record KeptState(BranchIdentity branch, ManifestState state, boolean current) {
}
