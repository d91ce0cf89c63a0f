package dev.omnigraph.engine.diff;

import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import java.util.Optional;

/**
 * Page bounds of the change surfaces (numbers reference §4): changes per page (default 1,000, at most 8,192) and
 * commits one feed poll captures (default 128, at most 512). A requested limit above its ceiling is refused (413).
 */
public record ChangeLimits(int defaultChanges, int maxChanges, int defaultCommitsPerPoll, int maxCommitsPerPoll) {
    public static final ChangeLimits DEFAULT = new ChangeLimits(1_000, 8_192, 128, 512);

    /** The page size for a request's optional {@code limit}. */
    public int changes(Optional<Integer> requested) {
        if (requested.isEmpty()) return defaultChanges;
        int limit = requested.get();
        if (limit < 1) throw new BadRequest("limit must be at least 1, not " + limit);
        if (limit > maxChanges) {
            throw new ResourceLimitExceeded("changes per page", maxChanges, limit, "ask for fewer and follow next_page_token");
        }
        return limit;
    }
}
