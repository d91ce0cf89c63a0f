package dev.omnigraph.engine.write;

import dev.omnigraph.storage.manifest.TableEntry;

/**
 * A table whose manifest pin moves without any data write: {@code pin} (the target's, read through a ref the
 * target does not own) becomes {@code to}, another published version of the same dataset on the same ref. A
 * merge adopts a type this way when the target has not touched it since the base and the source's state is
 * already a version of the ref the target reads.
 */
public record PointerSwitch(TableEntry pin, TableEntry to) {
    public PointerSwitch {
        if (!pin.objectId().equals(to.objectId()) || !pin.lanceBranch().equals(to.lanceBranch())) {
            throw new IllegalArgumentException("a pointer switch stays on one dataset and ref: " + pin + " → " + to);
        }
    }

    public String tableKey() {
        return pin.tableKey();
    }
}
