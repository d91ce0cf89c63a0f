package dev.omnigraph.engine.cleanup;

import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.storage.LanceBranch;
import dev.omnigraph.storage.LanceBranchNames;
import dev.omnigraph.storage.VersionRetention;
import dev.omnigraph.storage.error.OmnigraphException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Table forks no graph branch owns: a Lance branch of a table dataset whose name is no live graph branch and which
 * no kept state pins (left by a branch delete killed after its authority step, or whose fork delete failed). They
 * are reclaimed once older than the grace period, except a name that clashes by character prefix with another ref
 * of the dataset, because Lance deletes branch files by prefix and would take the other ref's files with it.
 */
final class OrphanForks {
    private OrphanForks() {
    }

    /** {@code location@name} of each orphan fork, deleted first when {@code confirm}. */
    static Mono<List<String>> reclaim(WriteContext ctx, Set<String> liveBranches,
                                      Map<String, Map<Optional<String>, VersionRetention>> pinned, Instant cutoff,
                                      boolean confirm) {
        return Flux.fromIterable(pinned.keySet())
                .concatMap(location -> {
                    String path = ctx.root() + "/" + location;
                    return ctx.tables().listBranches(path).flatMapMany(forks -> Flux.fromIterable(forks)
                            .filter(fork -> orphan(fork, forks, liveBranches, pinned.get(location), cutoff))
                            .concatMap(fork -> (confirm ? ctx.tables().deleteBranch(path, fork.name()) : Mono.<Void>empty())
                                    .thenReturn(location + "@" + fork.name())));
                })
                .collectList();
    }

    private static boolean orphan(LanceBranch fork, List<LanceBranch> all, Set<String> liveBranches,
                                  Map<Optional<String>, VersionRetention> pinnedRefs, Instant cutoff) {
        if (liveBranches.contains(fork.name()) || pinnedRefs.containsKey(Optional.of(fork.name()))
                || !Instant.ofEpochSecond(fork.createdAt()).isBefore(cutoff)) {
            return false;
        }
        try {
            LanceBranchNames.requireDisjoint(fork.name(), all.stream().map(LanceBranch::name).toList());
            return true;
        } catch (OmnigraphException clash) {
            return false;
        }
    }
}
