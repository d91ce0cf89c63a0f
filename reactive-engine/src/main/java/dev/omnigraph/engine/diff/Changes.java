package dev.omnigraph.engine.diff;

import dev.omnigraph.engine.read.GraphExporter;
import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.ValidText;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.ManifestStore;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The change surfaces of one graph handle: {@link #commit} (a commit's diff against its first parent),
 * {@link #poll} (the resumable feed of a branch) and {@link #baseline} (a snapshot to start a feed from), plus
 * {@link #rowDeltas} for writers that need raw row deltas between table pins.
 */
public final class Changes {
    /** A branch's pinned manifest state and its effective head commit (inherited on a fresh branch). */
    public record BranchHead(ManifestState state, Optional<String> commitId) {
    }

    private final ManifestStore manifest;
    private final Catalog catalog;
    private final TableStorage tables;
    private final Function<String, Mono<BranchHead>> heads;
    private final ChangeLimits limits;
    private final RowDeltas deltas;
    private final CommitDiff diff;
    private final ChangeFeed feed;

    public Changes(ManifestStore manifest, TableStorage tables, Catalog catalog, Function<String, Mono<BranchHead>> heads,
                   ChangeLimits limits) {
        this.manifest = manifest;
        this.catalog = catalog;
        this.tables = tables;
        this.heads = heads;
        this.limits = limits;
        this.deltas = new RowDeltas(tables);
        CommitStream stream = new CommitStream(manifest, deltas);
        this.diff = new CommitDiff(stream);
        this.feed = new ChangeFeed(manifest, stream);
    }

    public RowDeltas rowDeltas() {
        return deltas;
    }

    /** One page of commit {@code commitId}'s changes against its first parent. */
    public Mono<CommitChanges> commit(String commitId, ChangeFilter filter, Optional<String> pageToken,
                                      Optional<Integer> limit) {
        return Mono.defer(() -> {
            ValidText.require("commit id", commitId);
            PageBudget budget = limits.page(limit);
            requireKnownTypes(filter);
            return manifest.commit(commitId).flatMap(commit -> diff.page(commit, filter, pageToken, budget));
        });
    }

    /** One page of {@code branch}'s change feed from {@code start}. */
    public Mono<FeedPage> poll(String branch, FeedStart start, ChangeFilter filter, Optional<Integer> limit) {
        return Mono.defer(() -> {
            ValidText.require("branch", branch);
            PageBudget budget = limits.page(limit);
            requireKnownTypes(filter);
            return heads.apply(branch).flatMap(head -> feed.poll(branch, head.commitId(), start, filter, budget,
                    limits.defaultCommitsPerPoll()));
        });
    }

    /**
     * The baseline handshake: every entity of {@code branch}'s head that the filter's kinds and types admit, as
     * export NDJSON lines, then one final {@code {"baseline":{snapshot_commit_id, resume_cursor}}} line whose cursor
     * resumes the feed right after that snapshot. An interrupted stream has no final line, hence no cursor.
     */
    public Flux<String> baseline(String branch, ChangeFilter filter) {
        return Mono.fromCallable(() -> {
            ValidText.require("branch", branch);
            requireKnownTypes(filter);
            return exportedTypes(filter);
        }).flatMapMany(types -> heads.apply(branch).flatMapMany(head -> {
            String commitId = head.commitId().orElseThrow(() -> new BadRequest("branch " + branch + " has no commits"));
            Flux<String> rows = types.isEmpty() && !(filter.kinds().isEmpty() && filter.types().isEmpty())
                    ? Flux.empty()
                    : new GraphExporter(tables, manifest.root(), catalog).export(head.state(), types);
            return rows.concatWith(feed.cursorAfter(branch, commitId, filter).map(cursor ->
                    "{\"baseline\":{\"snapshot_commit_id\":\"" + commitId + "\",\"resume_cursor\":\"" + cursor + "\"}}"));
        }));
    }

    /** Type names the export must cover for this filter; empty = every type. */
    private Set<String> exportedTypes(ChangeFilter filter) {
        if (filter.kinds().isEmpty() && filter.types().isEmpty()) return Set.of();
        Set<String> out = new LinkedHashSet<>();
        catalog.tables().forEach(t -> {
            String kind = t.tableKey().substring(0, t.tableKey().indexOf(':'));
            if (filter.admitsTable(kind, t.typeName())) out.add(t.typeName());
        });
        return out;
    }

    private void requireKnownTypes(ChangeFilter filter) {
        for (String type : filter.types()) {
            ValidText.require("type", type);
            if (catalog.node(type).isEmpty() && catalog.edge(type).isEmpty()) {
                throw new BadRequest("unknown type '" + type + "' in the type filter");
            }
        }
    }
}
