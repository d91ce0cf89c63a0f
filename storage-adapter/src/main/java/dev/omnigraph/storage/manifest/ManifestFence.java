package dev.omnigraph.storage.manifest;

import dev.omnigraph.storage.error.CommitConflict;
import dev.omnigraph.storage.error.LeaseLost;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.lease.WriterTenure;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Binds a new writer tenure to the manifest, before the open's recovery or any write. A lease holder stamps its
 * epoch on every graph branch's manifest (one stamp-only commit per branch whose stamp is older): from then on a
 * previous holder that is still running (paused, partitioned) loses every publish, since its CAS sees the higher
 * epoch. A branch forked later inherits the stamp. A local (OS-locked) tenure writes nothing and adopts main's epoch.
 */
public final class ManifestFence {
    private static final int ATTEMPTS = 5;

    private ManifestFence() {
    }

    /** Fences (lease) or adopts (local) the manifest's epoch; a root without a manifest is left to the open to explain. */
    public static Mono<Void> establish(ManifestStore store, WriterTenure tenure) {
        Mono<Void> work = tenure.fencesManifest()
                ? store.branches().flatMapMany(Flux::fromIterable)
                        .concatMap(branch -> raise(store, branch.name(), tenure, 0)).then()
                : store.load(GraphBranches.MAIN).doOnNext(state -> tenure.adopt(state.writerEpoch())).then();
        return work.onErrorResume(NotFound.class, missing -> Mono.empty());
    }

    private static Mono<Void> raise(ManifestStore store, String branch, WriterTenure tenure, int attempt) {
        return store.load(branch).flatMap(state -> {
            tenure.adopt(state.writerEpoch());
            if (state.writerEpoch() == tenure.epoch()) {
                return Mono.<Void>empty();
            }
            String fenceId = "fence-" + tenure.epoch();
            return store.stageRows(state, List.of(ManifestRows.stamp(ManifestSchema.INTERNAL_SCHEMA_VERSION,
                    tenure.epoch(), state.schemaIdentity())), fenceId).flatMap(staged -> store.commitRows(staged, fenceId)).then();
        }).onErrorResume(CommitConflict.class, raced -> {
            // The previous holder published meanwhile: read again; its stamp never outranks this tenure.
            if (attempt + 1 >= ATTEMPTS) {
                return Mono.error(new LeaseLost(tenure.epoch(), "could not fence the manifest of branch " + branch
                        + " within " + ATTEMPTS + " attempts: another process keeps publishing"));
            }
            return raise(store, branch, tenure, attempt + 1);
        });
    }
}
