package dev.omnigraph.engine;

import dev.omnigraph.engine.diff.ChangeFilter;
import dev.omnigraph.engine.diff.Changes;
import dev.omnigraph.engine.diff.CommitChanges;
import dev.omnigraph.engine.diff.FeedPage;
import dev.omnigraph.engine.diff.FeedStart;
import java.util.Objects;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The change family of a handle ({@link Omnigraph#changes()}): a commit's entity diff against its first parent,
 * pages of a branch's resumable change feed, and the baseline a new feed consumer starts from.
 */
public final class ChangeOperations {
    private final Changes changes;

    ChangeOperations(Changes changes) {
        this.changes = changes;
    }

    /** One page of a commit's changes against its first parent. */
    public Mono<CommitChanges> commit(CommitPage request) {
        return changes.commit(request.commitId(), request.filter(), request.pageToken(), request.limit());
    }

    /** One page of a branch's change feed from the request's start. */
    public Mono<FeedPage> poll(Poll request) {
        return changes.poll(request.branch(), request.start(), request.filter(), request.limit());
    }

    /**
     * Every entity of {@code branch}'s head that {@code filter} admits, as export NDJSON lines, then one final
     * {@code {"baseline":{snapshot_commit_id, resume_cursor}}} line whose cursor resumes the feed right after that
     * snapshot. An interrupted stream has no final line, hence no cursor.
     */
    public Flux<String> baseline(String branch, ChangeFilter filter) {
        return changes.baseline(branch, filter);
    }

    /** One page of commit {@code commitId}'s changes: the filter, the page token of a later page, the page size. */
    public record CommitPage(String commitId, ChangeFilter filter, Optional<String> pageToken, Optional<Integer> limit) {
        /** Checks every part is present. */
        public CommitPage {
            Objects.requireNonNull(commitId, "commitId");
            Objects.requireNonNull(filter, "filter");
            Objects.requireNonNull(pageToken, "pageToken");
            Objects.requireNonNull(limit, "limit");
        }

        /** The first page of every change of {@code commitId}, at the default page size. */
        public static CommitPage of(String commitId) {
            return new CommitPage(commitId, ChangeFilter.ALL, Optional.empty(), Optional.empty());
        }

        /** The same page, only the changes {@code changeFilter} admits. */
        public CommitPage filter(ChangeFilter changeFilter) {
            return new CommitPage(commitId, changeFilter, pageToken, limit);
        }

        /** The page {@code token} (from a previous page) names. */
        public CommitPage pageToken(String token) {
            return new CommitPage(commitId, filter, Optional.of(token), limit);
        }

        /** At most {@code changes} changes per page. */
        public CommitPage limit(int changes) {
            return new CommitPage(commitId, filter, pageToken, Optional.of(changes));
        }
    }

    /** One poll of {@code branch}'s feed from {@code start}: the filter and the page size. */
    public record Poll(String branch, FeedStart start, ChangeFilter filter, Optional<Integer> limit) {
        /** Checks every part is present. */
        public Poll {
            Objects.requireNonNull(branch, "branch");
            Objects.requireNonNull(start, "start");
            Objects.requireNonNull(filter, "filter");
            Objects.requireNonNull(limit, "limit");
        }

        /** Every change of {@code branch} from {@code start}, at the default page size. */
        public static Poll of(String branch, FeedStart start) {
            return new Poll(branch, start, ChangeFilter.ALL, Optional.empty());
        }

        /** The same poll, only the changes {@code changeFilter} admits. */
        public Poll filter(ChangeFilter changeFilter) {
            return new Poll(branch, start, changeFilter, limit);
        }

        /** At most {@code changes} changes per page. */
        public Poll limit(int changes) {
            return new Poll(branch, start, filter, Optional.of(changes));
        }
    }
}
