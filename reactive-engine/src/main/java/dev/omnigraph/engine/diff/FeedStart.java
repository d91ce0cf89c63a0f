package dev.omnigraph.engine.diff;

import dev.omnigraph.storage.error.BadRequest;
import java.util.Optional;

/**
 * Where a feed poll begins: a durable cursor, an explicit start ({@code now}, {@code beginning},
 * {@code after:<commit_id>}), or the page token of a poll in progress.
 */
public sealed interface FeedStart {
    record Cursor(String token) implements FeedStart {
    }

    record Now() implements FeedStart {
    }

    record Beginning() implements FeedStart {
    }

    record After(String commitId) implements FeedStart {
    }

    record Page(String token) implements FeedStart {
    }

    /** The start of a request naming at most one of cursor, start and page token (none = {@code start=now}). */
    public static FeedStart of(Optional<String> cursor, Optional<String> start, Optional<String> pageToken) {
        int given = (cursor.isPresent() ? 1 : 0) + (start.isPresent() ? 1 : 0) + (pageToken.isPresent() ? 1 : 0);
        if (given > 1) throw new BadRequest("give at most one of cursor, start and page_token");
        if (cursor.isPresent()) return new Cursor(cursor.get());
        if (pageToken.isPresent()) return new Page(pageToken.get());
        String mode = start.orElse("now");
        if (mode.equals("now")) return new Now();
        if (mode.equals("beginning")) return new Beginning();
        if (mode.startsWith("after:") && mode.length() > "after:".length()) return new After(mode.substring("after:".length()));
        throw new BadRequest("start must be now, beginning or after:<commit_id>, not '" + mode + "'");
    }
}
