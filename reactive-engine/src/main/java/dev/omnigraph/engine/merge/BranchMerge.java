package dev.omnigraph.engine.merge;

import dev.omnigraph.engine.write.DirectPublishPipeline;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.engine.write.WriteToken;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.error.BadRequest;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * The branch merge writer. The source is captured once (its identity, head and manifest state): that commit is
 * what gets merged, whatever the source does afterwards, and the source is never written. The merge is then one
 * write in the target's branch queue: {@link MergePlanner} plans it under the target's branch gate against the
 * target token, and the shared pipeline stages, gates every touched table, rechecks, arms a {@code BranchMerge}
 * sidecar (an exact v3 intent whose lineage names the source head as merged parent), commits each table exactly
 * once, confirms and publishes one commit on the target with parents (target head, source head).
 */
public final class BranchMerge {
    /** Failpoint prefix: {@code branch_merge.after_arm}, {@code branch_merge.after_commit:1}, … */
    public static final String FAILPOINTS = "branch_merge";

    private final WriteContext ctx;

    public BranchMerge(WriteContext ctx) {
        this.ctx = ctx;
    }

    public Mono<MergeResult> merge(String source, String target, Optional<String> actorId) {
        if (source.equals(target)) {
            return Mono.error(new BadRequest("cannot merge branch '" + source + "' into itself"));
        }
        AtomicReference<MergeOutcome> outcome = new AtomicReference<>(MergeOutcome.ALREADY_UP_TO_DATE);
        return WriteToken.capture(ctx.manifest(), source, ctx.schemaIrHash()).flatMap(captured -> {
            String sourceHead = captured.effectiveHead()
                    .orElseThrow(() -> new BadRequest("branch '" + source + "' has no commits"));
            DirectPublishPipeline.Request request = new DirectPublishPipeline.Request(target, actorId,
                    Sidecar.WriterKind.BranchMerge, "merge " + source + " into " + target, FAILPOINTS, Optional.empty(),
                    token -> new MergePlanner(ctx).plan(token, captured).map(plan -> {
                        outcome.set(plan.outcome());
                        return plan.changes();
                    }), Optional.empty(), Optional.empty(), Optional.of(sourceHead));
            return new DirectPublishPipeline(ctx).run(request)
                    .map(written -> result(source, target, outcome.get(), written));
        });
    }

    /**
     * Merges, then deletes the source with {@code delete} (the ordinary branch delete, with its own checks). A
     * refused delete never fails the merge: the result says it was not deleted, and why.
     */
    public Mono<MergeResult> mergeThenDelete(String source, String target, Optional<String> actorId,
                                             Function<String, Mono<?>> delete) {
        return merge(source, target, actorId).flatMap(merged -> delete.apply(source)
                .then(Mono.fromSupplier(() -> merged.withDeletion(true, Optional.empty())))
                .onErrorResume(refused -> Mono.just(merged.withDeletion(false, Optional.of(String.valueOf(refused.getMessage()))))));
    }

    private static MergeResult result(String source, String target, MergeOutcome outcome, WriteOutcome written) {
        return new MergeResult(source, target, outcome, written.commit(), written.affectedNodes(), written.affectedEdges(),
                Optional.empty(), Optional.empty());
    }
}
