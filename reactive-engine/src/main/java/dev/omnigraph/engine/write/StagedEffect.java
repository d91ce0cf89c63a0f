package dev.omnigraph.engine.write;

import dev.omnigraph.storage.StagedHandle;

/** A table change staged as one uncommitted Lance transaction. */
record StagedEffect(TableChange change, StagedHandle handle) {
}
