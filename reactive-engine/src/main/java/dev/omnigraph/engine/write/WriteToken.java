package dev.omnigraph.engine.write;

import dev.omnigraph.storage.error.ReadSetChanged;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.ManifestStore;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * The immutable authority one write attempt is planned against: the branch's native identity, its exact head
 * (absence included), the accepted schema identity, and the table pins of that manifest state. Captured once per
 * attempt; revalidated under the gates before any effect. {@code verified}: read from the live manifest; an
 * unverified token is this process's last known state of the branch, taken without a storage call ({@link #kept}).
 *
 * <p>{@code schemaIrHash} is the identity the manifest's stamp row records (init and every schema apply's publish
 * write it), not the handle's copy: a token is only captured for a plan made against that same schema (the
 * catalog the writer compiles and validates with), else {@link ReadSetChanged} on {@link #SCHEMA_MEMBER}. So a
 * schema applied between a writer's start and its capture, or between its capture and the recheck under the
 * gates, refuses the write before any effect. A root stamped before the identity was recorded carries none; its
 * tokens fall back to the planning schema until its next schema apply records one.
 */
public record WriteToken(String branch, BranchIdentity branchIdentity, Optional<String> head,
                         Optional<String> effectiveHead, String schemaIrHash, ManifestState state, boolean verified) {
    /** The read-set member a schema change between planning and effect is reported on. */
    public static final String SCHEMA_MEMBER = "schema_identity";

    /** The live token; {@code schemaIrHash} is the schema the caller plans with (see the class comment). */
    public static Mono<WriteToken> capture(ManifestStore manifest, String branch, String schemaIrHash) {
        return manifest.branchIdentity(branch).zipWith(manifest.load(branch),
                (identity, state) -> of(branch, identity, schemaIrHash, state, true));
    }

    /**
     * The token of the manifest state this process last loaded or published for {@code branch}, with no version
     * check: in this process nothing publishes on the branch but the writer holding its gate, so it is normally
     * the live state, and the recheck under the gates (which reads the live version) replans the write when
     * another process moved it. Empty when nothing is kept.
     */
    public static Optional<Mono<WriteToken>> kept(ManifestStore manifest, String branch, String schemaIrHash) {
        // A kept state of another schema is stale (a schema applied since, through another handle): read live.
        return manifest.kept(branch).filter(state -> state.schemaIdentity().map(schemaIrHash::equals).orElse(true))
                .map(state -> manifest.branchIdentity(branch)
                .map(identity -> of(branch, identity, schemaIrHash, state, false)));
    }

    private static WriteToken of(String branch, BranchIdentity identity, String planning, ManifestState state,
                                 boolean verified) {
        String stored = state.schemaIdentity().orElse(planning);
        if (!stored.equals(planning)) {
            throw new ReadSetChanged(SCHEMA_MEMBER, planning, stored);
        }
        Optional<String> inherited = Optional.ofNullable(state.heads().get(identity.parent().orElse(GraphBranches.MAIN)));
        return new WriteToken(branch, identity, state.head(), state.head().or(() -> inherited), stored, state,
                verified);
    }

    /** True when {@code other} (captured later) carries the same authority: identity, head and schema. */
    public boolean sameAuthority(WriteToken other) {
        return branchIdentity.equals(other.branchIdentity) && head.equals(other.head)
                && schemaIrHash.equals(other.schemaIrHash);
    }
}
