package dev.omnigraph.storage.error;

import java.util.Objects;
import java.util.Optional;

/**
 * The change feed cannot continue from a cursor: the branch's history no longer leads back to the cursor's commit
 * (the branch was deleted and created again, or history was cleaned). Resume with a fresh baseline.
 */
public final class ChangeFeedGap extends OmnigraphException {
    private final String firstUnreadableCommitId;
    private final Optional<String> cursor;

    public ChangeFeedGap(String firstUnreadableCommitId, Optional<String> cursor, String message) {
        super(ErrorCode.CHANGE_FEED_GAP, message, null);
        this.firstUnreadableCommitId = Objects.requireNonNull(firstUnreadableCommitId, "firstUnreadableCommitId");
        this.cursor = Objects.requireNonNull(cursor, "cursor");
    }

    public String firstUnreadableCommitId() { return firstUnreadableCommitId; }
    public Optional<String> cursor() { return cursor; }
}
