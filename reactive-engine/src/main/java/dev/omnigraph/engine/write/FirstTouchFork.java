package dev.omnigraph.engine.write;

import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.LanceBranch;
import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BiFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The first write on a graph branch to a table the branch still inherits. Lance branch-local files can only be
 * staged once the table's branch ref exists, and that ref must never exist without an owner, so such a change is
 * staged in two halves: before the gates it is only <em>deferred</em> (its pin already names the fork ref, so the
 * armed sidecar claims it); after the sidecar is durable, {@link #realize} creates the fork at the inherited
 * version and stages the change on it. Recovery recognises a fork pin by the published entry still pointing
 * elsewhere; rolling back deletes the fork, rolling forward publishes it.
 */
public final class FirstTouchFork {
    private final WriteContext ctx;

    public FirstTouchFork(WriteContext ctx) {
        this.ctx = ctx;
    }

    /** True when {@code pin} is read through another ref than the token's branch: the write must fork it first. */
    public static boolean inherited(WriteToken token, TableEntry pin) {
        return !pin.lanceBranch().equals(GraphBranches.lanceRef(token.branch()));
    }

    /** The change re-pinned on the fork ref it will commit to (same version: a fork starts at its parent's version). */
    static StagedEffect deferred(WriteToken token, TableChange change, Optional<ChunkChain> chain) {
        TableEntry pin = change.pin();
        TableEntry onFork = pin.pinnedAt(pin.version(), GraphBranches.lanceRef(token.branch()), pin.rowCount());
        return new StagedEffect(new TableChange(onFork, change.kind(), change.rows(), change.deleteIds()), null, chain, true);
    }

    static boolean isDeferred(StagedEffect effect) {
        return effect.deferred();
    }

    /**
     * Under the gates, after the sidecar is armed: forks every deferred table from {@code inheritedPins} and stages
     * its change there. Handles already staged are added to {@code staged} as they appear, so the caller can
     * discard them on any failure. Effects staged before the gates pass through unchanged, in order.
     */
    Mono<List<StagedEffect>> realize(String failpointPrefix, List<StagedEffect> effects, List<TableEntry> inheritedPins,
                                     BiFunction<TableSnapshot, StagedEffect, Mono<StagedHandle>> stage,
                                     List<StagedHandle> staged) {
        if (effects.stream().noneMatch(FirstTouchFork::isDeferred)) {
            return Mono.just(effects);
        }
        return Flux.fromIterable(effects)
                .concatMap(effect -> {
                    if (!isDeferred(effect)) {
                        return Mono.just(Optional.of(effect));
                    }
                    TableEntry target = effect.change().pin();
                    TableEntry source = inheritedPins.stream().filter(pin -> pin.tableKey().equals(target.tableKey()))
                            .findFirst().orElseThrow();
                    return fork(source, target.lanceBranch().orElseThrow())
                            .flatMap(snapshot -> stage.apply(snapshot, effect))
                            .doOnNext(staged::add)
                            .map(handle -> Optional.of(new StagedEffect(effect.change(), handle, effect.chain())))
                            // A delete matching nothing on the fork stages nothing; the untouched fork is reused later.
                            .defaultIfEmpty(Optional.empty());
                })
                .concatMap(Mono::justOrEmpty)
                .collectList()
                .flatMap(realized -> ctx.failpoints().hit(FailpointCatalog.point(failpointPrefix, FailpointCatalog.AFTER_FORK))
                        .thenReturn(realized));
    }

    /**
     * Creates {@code branch} on the table at the inherited pin and opens it there. A ref of that name the
     * manifest does not publish is never anyone's live state (the gates and the recovery barrier exclude other
     * in-process writers): an untouched one at the same fork point is reused, anything else is replaced.
     */
    public Mono<TableSnapshot> fork(TableEntry source, String branch) {
        TableRef from = ctx.ref(source);
        TableRef onFork = TableRef.onBranch(from.path(), branch);
        return ctx.tables().listBranches(from.path())
                .flatMap(existing -> {
                    Optional<LanceBranch> found = existing.stream().filter(b -> b.name().equals(branch)).findFirst();
                    if (found.isEmpty()) {
                        return ctx.tables().createBranch(from, source.version(), branch).then();
                    }
                    LanceBranch leftover = found.get();
                    return ctx.tables().head(onFork).flatMap(head -> reusable(leftover, source, head)
                            ? Mono.<Void>empty()
                            : ctx.tables().deleteBranch(from.path(), branch)
                                    .then(ctx.tables().createBranch(from, source.version(), branch)).then());
                })
                .then(ctx.tables().open(onFork, OptionalLong.of(source.version())));
    }

    private static boolean reusable(LanceBranch leftover, TableEntry source, long head) {
        return head == source.version() && leftover.parentVersion() == source.version()
                && leftover.parentBranch().filter(parent -> !parent.equals(GraphBranches.MAIN)).equals(source.lanceBranch());
    }

    /** The pins the token read: for deferred effects, where the fork starts from. */
    static List<TableEntry> inheritedPins(ChangeSet changes) {
        List<TableEntry> pins = new ArrayList<>();
        changes.changes().forEach(change -> pins.add(change.pin()));
        return pins;
    }
}
