package dev.omnigraph.engine.diff;

import java.util.List;
import java.util.Optional;

/**
 * One bounded feed poll result. A non-terminal page carries {@code nextPageToken} (continue this poll's captured
 * cut) and no cursor; the terminal page carries the durable {@code cursor}, advanced over complete commits only,
 * and {@code caughtUp}: true when the cut was the branch head, false when more commits already wait.
 */
public record FeedPage(List<Block> blocks, Optional<String> cursor, Optional<String> nextPageToken,
                       Optional<Boolean> caughtUp) {
    public FeedPage {
        blocks = List.copyOf(blocks);
    }

    /** The changes one commit contributed to this page. */
    public record Block(ChangeCause cause, List<EntityChange> changes) {
        public Block {
            changes = List.copyOf(changes);
        }
    }
}
