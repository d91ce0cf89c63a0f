package dev.omnigraph.engine.write;

import dev.omnigraph.storage.CommittedVersion;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.error.StorageFault;
import java.util.function.BiFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Commits the rest of a {@link ChunkChain} once its first chunk landed: chunk {@code i} is staged on exactly the
 * version chunk {@code i - 1} produced (its deletion vectors must see the previous chunk's) and must land exactly
 * on it + 1, with no retry. Between chunks the failpoint {@code <writer>.after_chunk:<n>.<i>} (table {@code n}'s
 * chunk {@code i} landed, more to come); after the last one the writer's own {@code after_commit:<n>}.
 */
final class ChainCommit {
    private final WriteContext ctx;

    ChainCommit(WriteContext ctx) {
        this.ctx = ctx;
    }

    /**
     * From {@code first} (chunk 1 as committed) to the last chunk's commit. {@code stage} stages a chunk on a
     * snapshot (the pipeline's own staging, with the chunk's mark in its properties).
     */
    Mono<CommittedVersion> rest(String points, int table, StagedEffect effect, CommittedVersion first,
                                BiFunction<TableSnapshot, Integer, Mono<StagedHandle>> stage) {
        ChunkChain chain = effect.chain().orElseThrow();
        java.util.concurrent.atomic.AtomicReference<CommittedVersion> landed = new java.util.concurrent.atomic.AtomicReference<>(first);
        // One chunk at a time (concatMap): each is staged on the version the one before produced.
        return Flux.range(2, chain.length() - 1)
                .concatMap(chunk -> afterChunk(points, table, chunk - 1)
                        .then(Mono.defer(() -> stage.apply(TableSnapshot.pinned(effect.handle().ref(), landed.get().version(),
                                landed.get().rowCount()), chunk)))
                        .flatMap(handle -> ctx.tables().commitStaged(handle).flatMap(achieved -> achieved.isExactly(handle.identity())
                                ? Mono.just(achieved)
                                : Mono.<CommittedVersion>error(new StorageFault(effect.change().tableKey() + " chunk " + chunk
                                        + " landed as " + achieved + ", not exactly on " + handle.identity(), null))))
                        .doOnNext(landed::set))
                .then(Mono.fromSupplier(landed::get));
    }

    private Mono<Void> afterChunk(String points, int table, int chunk) {
        return ctx.failpoints().hit(FailpointCatalog.point(points, FailpointCatalog.AFTER_CHUNK + table + "." + chunk));
    }
}
