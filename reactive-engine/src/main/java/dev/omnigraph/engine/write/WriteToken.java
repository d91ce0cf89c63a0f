package dev.omnigraph.engine.write;

import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.ManifestStore;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * The immutable authority one write attempt is planned against: the branch's native identity, its exact head
 * (absence included), the schema identity, and the table pins of that manifest state. Captured once per attempt;
 * revalidated under the gates before any effect.
 */
public record WriteToken(String branch, BranchIdentity branchIdentity, Optional<String> head,
                         Optional<String> effectiveHead, String schemaIrHash, ManifestState state) {

    public static Mono<WriteToken> capture(ManifestStore manifest, String branch, String schemaIrHash) {
        return manifest.branchIdentity(branch).zipWith(manifest.load(branch), (identity, state) -> {
            Optional<String> inherited = Optional.ofNullable(
                    state.heads().get(identity.parent().orElse(GraphBranches.MAIN)));
            return new WriteToken(branch, identity, state.head(), state.head().or(() -> inherited), schemaIrHash, state);
        });
    }

    /** True when {@code other} (captured later) carries the same authority: identity, head and schema. */
    public boolean sameAuthority(WriteToken other) {
        return branchIdentity.equals(other.branchIdentity) && head.equals(other.head)
                && schemaIrHash.equals(other.schemaIrHash);
    }
}
