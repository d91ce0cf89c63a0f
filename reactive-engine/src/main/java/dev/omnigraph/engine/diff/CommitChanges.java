package dev.omnigraph.engine.diff;

import java.util.List;
import java.util.Optional;

/** One page of a commit's entity diff; {@code nextPageToken} continues this diff and is absent on the last page. */
public record CommitChanges(ChangeCause cause, List<EntityChange> changes, Optional<String> nextPageToken) {
    public CommitChanges {
        changes = List.copyOf(changes);
    }
}
