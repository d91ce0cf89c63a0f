package dev.omnigraph.engine.write;

import dev.omnigraph.storage.StagedHandle;
import java.util.Optional;

/**
 * A table change staged as one uncommitted Lance transaction, or, for a change that commits as a {@link ChunkChain},
 * its first chunk staged (the rest are staged one after another as each lands). Before staging the handle is null;
 * a {@code deferred} change (a first-touch fork, {@link FirstTouchFork}) is staged only once the sidecar is armed.
 */
record StagedEffect(TableChange change, StagedHandle handle, Optional<ChunkChain> chain, boolean deferred) {
    StagedEffect(TableChange change, StagedHandle handle, Optional<ChunkChain> chain) {
        this(change, handle, chain, false);
    }

    StagedEffect(TableChange change, StagedHandle handle) {
        this(change, handle, Optional.empty());
    }

    /** How many exact transactions the effect commits. */
    int transactions() {
        return chain.map(ChunkChain::length).orElse(1);
    }
}
