package dev.omnigraph.engine.diff;

import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import java.util.Optional;

/**
 * Page bounds of the change surfaces (numbers reference §4): changes per page (default 1,000, at most 8,192), the
 * estimated bytes of one page's changes ({@code pageBytes}, default 4 MiB, at most {@link #MAX_PAGE_BYTES}) and
 * commits one feed poll captures (default 128, at most 512). A requested limit above its ceiling is refused (413);
 * a page whose bytes would pass {@code pageBytes} ends early and hands out its next-page token.
 */
public record ChangeLimits(int defaultChanges, int maxChanges, int defaultCommitsPerPoll, int maxCommitsPerPoll,
                           long pageBytes) {
    public static final long DEFAULT_PAGE_BYTES = 4L << 20;
    public static final long MAX_PAGE_BYTES = 32L << 20;
    public static final ChangeLimits DEFAULT = new ChangeLimits(1_000, 8_192, 128, 512, DEFAULT_PAGE_BYTES);

    public ChangeLimits {
        if (pageBytes < 1 || pageBytes > MAX_PAGE_BYTES) {
            throw new IllegalArgumentException("pageBytes must be between 1 and " + MAX_PAGE_BYTES + ", not " + pageBytes);
        }
    }

    public ChangeLimits(int defaultChanges, int maxChanges, int defaultCommitsPerPoll, int maxCommitsPerPoll) {
        this(defaultChanges, maxChanges, defaultCommitsPerPoll, maxCommitsPerPoll, DEFAULT_PAGE_BYTES);
    }

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

    /** The bounds of one page for a request's optional {@code limit}. */
    PageBudget page(Optional<Integer> requested) {
        return new PageBudget(changes(requested), pageBytes);
    }
}
