package dev.omnigraph.engine;

import dev.omnigraph.engine.branch.BranchResult;
import dev.omnigraph.engine.merge.MergeResult;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.GraphBranches;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * The branch family of a handle ({@link Omnigraph#branches()}): list, create, delete, merge, and create-unless-present.
 * Branch writes need a read-write handle.
 */
public final class BranchOperations {
    private final Omnigraph graph;
    private final GraphBranching branching;

    BranchOperations(Omnigraph graph, GraphBranching branching) {
        this.graph = graph;
        this.branching = branching;
    }

    /** Graph branches with their identities, main first. */
    public Mono<List<BranchIdentity>> list() {
        return graph.manifest().branches();
    }

    /**
     * Creates a branch as {@code request} says. Lazy: no table is copied; the branch reads every table through the
     * pins it inherited until its first write to that table. A name that exists is a {@code Conflict}.
     */
    public Mono<BranchResult.Created> create(Create request) {
        return branching.create(request.name(), Optional.of(request.from()));
    }

    /** Creates branch {@code name} from main's head. */
    public Mono<BranchResult.Created> create(String name) {
        return create(Create.of(name));
    }

    /** Deletes branch {@code name} (never main, never a branch others still fork from). */
    public Mono<BranchResult.Deleted> delete(String name) {
        return branching.delete(name);
    }

    /**
     * Merges the current head of the request's source into its target as one commit (three-way, entity by entity).
     * With {@code deleteSource}, a successful merge then deletes the source; a refused delete is reported in the
     * result, never as a failure of the merge.
     */
    public Mono<MergeResult> merge(Merge request) {
        return branching.merge(request.source(), request.target(), request.deleteSource(), request.actor());
    }

    /**
     * Creates branch {@code name} from {@code from} (a branch or commit id) unless it exists; emits whether it did.
     * Two callers racing to create the same name both succeed.
     */
    public Mono<Boolean> ensure(String name, String from) {
        return branching.ensure(name, Optional.of(Objects.requireNonNull(from, "from")));
    }

    /** A branch to create: its name and what it starts from (a branch name or a commit id). */
    public record Create(String name, String from) {
        /** Checks both are present. */
        public Create {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(from, "from");
        }

        /** Branch {@code name} from main's head. */
        public static Create of(String name) {
            return new Create(name, GraphBranches.MAIN);
        }

        /** The same branch, starting from {@code branchOrCommit} instead. */
        public Create from(String branchOrCommit) {
            return new Create(name, branchOrCommit);
        }
    }

    /** A merge of {@code source}'s head into {@code target}, with the actor recorded on the merge commit. */
    public record Merge(String source, String target, boolean deleteSource, Optional<String> actor) {
        /** Checks every part is present. */
        public Merge {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(actor, "actor");
        }

        /** Merge {@code source} into {@code target}, keeping the source, with no actor. */
        public static Merge of(String source, String target) {
            return new Merge(source, target, false, Optional.empty());
        }

        /** The same merge, deleting the source once it succeeded. */
        public Merge deletingSource() {
            return new Merge(source, target, true, actor);
        }

        /** The same merge, recording {@code actorId} on the commit. */
        public Merge actor(String actorId) {
            return new Merge(source, target, deleteSource, Optional.of(actorId));
        }
    }
}
