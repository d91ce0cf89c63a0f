package dev.omnigraph.engine;

import dev.omnigraph.engine.branch.BranchControl;
import dev.omnigraph.engine.branch.BranchResult;
import dev.omnigraph.engine.merge.BranchMerge;
import dev.omnigraph.engine.merge.MergeResult;
import dev.omnigraph.storage.ValidText;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.manifest.GraphBranches;
import java.util.Optional;
import reactor.core.publisher.Mono;

/** The branch verbs of an {@link Omnigraph} handle: create, delete, merge, and create-unless-present for loads. */
final class GraphBranching {
    private final Omnigraph graph;

    GraphBranching(Omnigraph graph) {
        this.graph = graph;
    }

    Mono<BranchResult.Created> create(String name, Optional<String> from) {
        return Mono.defer(() -> {
            graph.requireWritable("branch create");
            graph.authorize(Authorizer.Action.BRANCH_CREATE, Optional.empty(),
                    Optional.of(from.orElse(GraphBranches.MAIN)), Optional.of(name));
            return new BranchControl(graph.writeContext()).create(name, from);
        });
    }

    Mono<BranchResult.Deleted> delete(String name) {
        return Mono.defer(() -> {
            graph.requireWritable("branch delete");
            graph.authorize(Authorizer.Action.BRANCH_DELETE, Optional.empty(), Optional.empty(), Optional.of(name));
            return new BranchControl(graph.writeContext()).delete(name);
        });
    }

    Mono<MergeResult> merge(String source, String target, boolean deleteSource, Optional<String> actorId) {
        return Mono.defer(() -> {
            GraphWrites.requireValidText(source, actorId, Optional.empty());
            GraphWrites.requireValidText(target, Optional.empty(), Optional.empty());
            graph.requireWritable("branch merge");
            graph.authorize(Authorizer.Action.BRANCH_MERGE, actorId, Optional.of(source), Optional.of(target));
            BranchMerge merge = new BranchMerge(graph.writeContext());
            return deleteSource ? merge.mergeThenDelete(source, target, actorId, this::delete)
                    : merge.merge(source, target, actorId);
        });
    }

    Mono<Boolean> ensure(String branch, Optional<String> from) {
        if (from.isEmpty() || GraphBranches.MAIN.equals(branch)) {
            return Mono.just(false);
        }
        return Mono.defer(() -> {
            ValidText.require("branch", branch);
            return graph.manifest().branches().flatMap(live -> live.stream().anyMatch(b -> b.name().equals(branch))
                    ? Mono.just(false)
                    : create(branch, from).thenReturn(true)
                            // Lost a race with another creator of the same name: it exists now, which is all we need.
                            .onErrorResume(Conflict.class, exists -> graph.manifest().branchIdentity(branch)
                                    .thenReturn(false)));
        });
    }
}
