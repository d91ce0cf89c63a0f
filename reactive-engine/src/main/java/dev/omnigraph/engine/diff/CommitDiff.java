package dev.omnigraph.engine.diff;

import dev.omnigraph.storage.manifest.GraphCommit;
import java.util.List;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * {@code commit changes}: one commit's entity changes against its first parent, filtered and paged. A page token
 * names the commit, the filter and the position after the page's last change, so the next page resumes exactly
 * there (and a token is refused for another commit or filter).
 */
public final class CommitDiff {
    static final String PAGE = "og-commit-page";

    private final CommitStream stream;

    CommitDiff(CommitStream stream) {
        this.stream = stream;
    }

    Mono<CommitChanges> page(GraphCommit commit, ChangeFilter filter, Optional<String> pageToken, PageBudget budget) {
        return Mono.defer(() -> {
            Optional<CommitStream.Position> from = pageToken.map(token -> position(token, commit, filter));
            return stream.plan(commit, filter)
                    .flatMap(planned -> budget.take(stream.stream(planned, from, filter), CommitDiff::size).collectList())
                    .map(found -> {
                        List<CommitStream.Positioned> page = found.subList(0, budget.pageSize(found, CommitDiff::size));
                        Optional<String> next = found.size() > page.size()
                                ? Optional.of(token(commit, filter, page.get(page.size() - 1).position()))
                                : Optional.empty();
                        return new CommitChanges(ChangeCause.of(commit),
                                page.stream().map(CommitStream.Positioned::change).toList(), next);
                    });
        });
    }

    private static long size(CommitStream.Positioned change) {
        return PageBudget.estimate(change.change());
    }

    private static String token(GraphCommit commit, ChangeFilter filter, CommitStream.Position at) {
        return ChangeTokens.encode(PAGE, List.of(commit.id(), filter.scope(), at.tableKey(), at.lastId()));
    }

    private static CommitStream.Position position(String token, GraphCommit commit, ChangeFilter filter) {
        List<String> parts = ChangeTokens.decode("page_token", PAGE, 4, token);
        if (!parts.get(0).equals(commit.id())) {
            throw ChangeTokens.rejected("page_token", "it continues commit " + parts.get(0) + ", not " + commit.id());
        }
        if (!parts.get(1).equals(filter.scope())) {
            throw ChangeTokens.rejected("page_token", "it was issued for other kind/type/op filters");
        }
        return new CommitStream.Position(parts.get(2), parts.get(3));
    }
}
