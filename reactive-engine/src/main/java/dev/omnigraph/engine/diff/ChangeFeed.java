package dev.omnigraph.engine.diff;

import dev.omnigraph.storage.ValidText;
import dev.omnigraph.storage.error.ChangeFeedGap;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The change feed of one branch: the entity changes of its first-parent history after a cursor, oldest commit
 * first, in bounded pages. A poll captures a cut (at most {@code commitsPerPoll} commits past the cursor); its pages
 * carry a page token holding the cut and the exact position, and only the terminal page returns the new cursor,
 * which names the last complete commit. Cursors and tokens bind the graph (its genesis commit), the branch and the
 * filter, so one issued elsewhere is refused. History is read from {@code __manifest} commit rows, so a cursor
 * survives restarts; a cursor whose commit the branch's history no longer reaches is a {@link ChangeFeedGap}.
 */
public final class ChangeFeed {
    static final String CURSOR = "og-change-cursor";
    static final String PAGE = "og-change-page";
    private static final String CURSOR_WHAT = "change cursor";

    private final ManifestStore manifest;
    private final CommitStream stream;

    ChangeFeed(ManifestStore manifest, CommitStream stream) {
        this.manifest = manifest;
        this.stream = stream;
    }

    /** What a poll resolved before reading changes: the history, the cut and where to resume. */
    private record Plan(String graphId, List<GraphCommit> pending, Optional<CommitStream.Position> position,
                        String done, Optional<String> cut) {
    }

    private record Item(GraphCommit commit, CommitStream.Positioned change) {
    }

    /**
     * One page of {@code branch}'s changes. {@code head} is the branch's effective head commit (its own, or the
     * one it inherited at its fork); empty only on a graph without commits.
     */
    Mono<FeedPage> poll(String branch, Optional<String> head, FeedStart start, ChangeFilter filter, PageBudget budget,
                        int commitsPerPoll) {
        return history(branch).flatMap(byId -> {
            Plan plan = plan(branch, head, start, filter, byId, commitsPerPoll);
            if (plan.pending().isEmpty()) {
                return Mono.just(new FeedPage(List.of(), Optional.of(cursor(plan.graphId(), branch, filter, plan.done())),
                        Optional.empty(), Optional.of(true)));
            }
            Flux<Item> items = Flux.fromIterable(plan.pending())
                    .index()
                    .concatMap(indexed -> stream.plan(indexed.getT2(), parentIn(indexed.getT2(), byId), filter)
                            .flatMapMany(planned -> stream.stream(planned,
                                    indexed.getT1() == 0 ? plan.position() : Optional.empty(), filter))
                            .map(change -> new Item(indexed.getT2(), change)));
            return budget.take(items, ChangeFeed::size).collectList()
                    .map(taken -> page(branch, head, filter, plan, taken, budget.pageSize(taken, ChangeFeed::size)));
        });
    }

    /** The first parent of {@code commit} when the branch's history (already read) holds it. */
    private static Optional<GraphCommit> parentIn(GraphCommit commit, Map<String, GraphCommit> byId) {
        return commit.parentIds().stream().findFirst().map(byId::get);
    }

    /** The durable cursor that resumes {@code branch}'s feed right after {@code commitId}. */
    public Mono<String> cursorAfter(String branch, String commitId, ChangeFilter filter) {
        return history(branch).map(byId -> cursor(genesis(byId), branch, filter, commitId));
    }

    private Mono<Map<String, GraphCommit>> history(String branch) {
        return manifest.commits(branch).collectMap(GraphCommit::id);
    }

    private Plan plan(String branch, Optional<String> head, FeedStart start, ChangeFilter filter,
                      Map<String, GraphCommit> byId, int commitsPerPoll) {
        String graphId = genesis(byId);
        String done;
        Optional<CommitStream.Position> position = Optional.empty();
        Optional<String> cut = Optional.empty();
        if (start instanceof FeedStart.After after) {
            ValidText.require("start commit id", after.commitId());
            if (!byId.containsKey(after.commitId())) {
                throw new NotFound("commit", after.commitId(), "no commit " + after.commitId() + " on branch " + branch);
            }
            done = after.commitId();
        } else if (start instanceof FeedStart.Cursor c) {
            List<String> parts = ChangeTokens.decode(CURSOR_WHAT, CURSOR, 4, c.token());
            requireBinding(CURSOR_WHAT, parts, graphId, branch, filter);
            done = parts.get(3);
        } else if (start instanceof FeedStart.Page p) {
            List<String> parts = ChangeTokens.decode("page_token", PAGE, 7, p.token());
            requireBinding("page_token", parts, graphId, branch, filter);
            done = parts.get(3);
            cut = Optional.of(parts.get(4));
            if (!parts.get(5).isEmpty()) position = Optional.of(new CommitStream.Position(parts.get(5), parts.get(6)));
        } else if (start instanceof FeedStart.Beginning) {
            done = graphId;
        } else {
            done = head.orElse(graphId); // start=now
        }
        Optional<String> tip = cut.isPresent() ? cut : head;
        List<GraphCommit> pending = pendingAfter(done, tip, byId, start);
        if (cut.isEmpty() && pending.size() > commitsPerPoll) pending = pending.subList(0, commitsPerPoll);
        Optional<String> fixedCut = pending.isEmpty() ? Optional.empty() : Optional.of(pending.get(pending.size() - 1).id());
        return new Plan(graphId, pending, position, done, fixedCut);
    }

    /** The first-parent commits after {@code done} up to {@code tip}, oldest first; a gap when none leads to it. */
    private static List<GraphCommit> pendingAfter(String done, Optional<String> tip, Map<String, GraphCommit> byId,
                                                  FeedStart start) {
        List<GraphCommit> chain = new ArrayList<>();
        Optional<String> at = tip;
        while (at.isPresent() && !at.get().equals(done)) {
            GraphCommit commit = byId.get(at.get());
            if (commit == null) break;
            chain.add(commit);
            at = commit.parentIds().stream().findFirst();
        }
        if (at.isEmpty() || !at.get().equals(done)) {
            String firstUnreadable = chain.isEmpty() ? done : chain.get(chain.size() - 1).id();
            Optional<String> cursor = start instanceof FeedStart.Cursor c ? Optional.of(c.token()) : Optional.empty();
            throw new ChangeFeedGap(firstUnreadable, cursor, "change feed gap: the branch's history no longer leads"
                    + " back to commit " + done + "; take a new baseline (POST /changes/baseline)");
        }
        Collections.reverse(chain);
        return chain;
    }

    private static void requireBinding(String what, List<String> parts, String graphId, String branch, ChangeFilter filter) {
        if (!parts.get(0).equals(graphId)) throw ChangeTokens.rejected(what, "it was issued by another graph");
        if (!parts.get(1).equals(branch)) {
            throw ChangeTokens.rejected(what, "it follows branch '" + parts.get(1) + "', not '" + branch + "'");
        }
        if (!parts.get(2).equals(filter.scope())) throw ChangeTokens.rejected(what, "it was issued for other kind/type/op filters");
    }

    private static String genesis(Map<String, GraphCommit> byId) {
        return byId.values().stream().filter(c -> c.parentIds().isEmpty()).map(GraphCommit::id).sorted().findFirst()
                .orElseThrow(() -> new IllegalStateException("the graph's history has no genesis commit"));
    }

    private static long size(Item item) {
        return PageBudget.estimate(item.change().change());
    }

    /** The page of the first {@code pageSize} of {@code items}; any item past them is the next page's first. */
    private FeedPage page(String branch, Optional<String> head, ChangeFilter filter, Plan plan, List<Item> items,
                          int pageSize) {
        List<Item> taken = items.subList(0, pageSize);
        List<FeedPage.Block> blocks = blocks(taken);
        String cut = plan.cut().orElseThrow();
        if (items.size() == pageSize) {
            return new FeedPage(blocks, Optional.of(cursor(plan.graphId(), branch, filter, cut)), Optional.empty(),
                    Optional.of(head.map(cut::equals).orElse(true)));
        }
        Item last = taken.get(taken.size() - 1);
        Item next = items.get(pageSize);
        String done = doneBefore(plan, last.commit());
        List<String> at = List.of(last.change().position().tableKey(), last.change().position().lastId());
        if (!next.commit().id().equals(last.commit().id())) {
            done = last.commit().id(); // the page ended exactly at a commit boundary
            at = List.of("", "");
        }
        String token = ChangeTokens.encode(PAGE, List.of(plan.graphId(), branch, filter.scope(), done, cut, at.get(0), at.get(1)));
        return new FeedPage(blocks, Optional.empty(), Optional.of(token), Optional.empty());
    }

    /** The commit before {@code commit} in this poll (the poll's own starting point for its first commit). */
    private static String doneBefore(Plan plan, GraphCommit commit) {
        int index = plan.pending().indexOf(commit);
        return index <= 0 ? plan.done() : plan.pending().get(index - 1).id();
    }

    private static List<FeedPage.Block> blocks(List<Item> items) {
        List<FeedPage.Block> blocks = new ArrayList<>();
        GraphCommit current = null;
        List<EntityChange> changes = new ArrayList<>();
        for (Item item : items) {
            if (current != null && !current.id().equals(item.commit().id())) {
                blocks.add(new FeedPage.Block(ChangeCause.of(current), changes));
                changes = new ArrayList<>();
            }
            current = item.commit();
            changes.add(item.change().change());
        }
        if (current != null) blocks.add(new FeedPage.Block(ChangeCause.of(current), changes));
        return blocks;
    }

    private static String cursor(String graphId, String branch, ChangeFilter filter, String commitId) {
        return ChangeTokens.encode(CURSOR, List.of(graphId, branch, filter.scope(), commitId));
    }
}
