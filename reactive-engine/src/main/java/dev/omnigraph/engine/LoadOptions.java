package dev.omnigraph.engine;

import java.util.Optional;
import java.util.Set;

/**
 * Options of one load: types an overwrite empties even without records, the actor recorded on the commit, and an
 * optional expected graph commit (the load fails with {@code precondition_failure} if the branch moved).
 */
public record LoadOptions(Set<String> overwriteTypes, Optional<String> actorId, Optional<String> ifGraphCommit) {
    public static final LoadOptions DEFAULT = new LoadOptions(Set.of(), Optional.empty(), Optional.empty());

    public LoadOptions {
        overwriteTypes = Set.copyOf(overwriteTypes);
    }

    public LoadOptions actor(String actor) {
        return new LoadOptions(overwriteTypes, Optional.of(actor), ifGraphCommit);
    }

    public LoadOptions ifGraphCommit(String commitId) {
        return new LoadOptions(overwriteTypes, actorId, Optional.of(commitId));
    }

    public LoadOptions emptying(Set<String> types) {
        return new LoadOptions(types, actorId, ifGraphCommit);
    }
}
