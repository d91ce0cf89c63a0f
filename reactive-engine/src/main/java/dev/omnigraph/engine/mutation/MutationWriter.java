package dev.omnigraph.engine.mutation;

import dev.omnigraph.engine.query.BoundParams;
import dev.omnigraph.engine.query.MutationPlan;
import dev.omnigraph.engine.write.ChangeSet;
import dev.omnigraph.engine.write.ChangeValidator;
import dev.omnigraph.engine.write.CommittedKeyCache;
import dev.omnigraph.engine.write.CommittedRows;
import dev.omnigraph.engine.write.DirectPublishPipeline;
import dev.omnigraph.engine.write.IdempotentRequest;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.manifest.TableEntry;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * Runs a checked mutation as one graph commit through the direct-publish pipeline (sidecar kind
 * {@code Mutation}, failpoints {@code mutation.*}). {@code now()} is fixed once per request, so a replan after a
 * moved head writes the same logical input.
 */
public final class MutationWriter {
    private final WriteContext ctx;
    private final DirectPublishPipeline pipeline;

    public MutationWriter(WriteContext ctx) {
        this.ctx = ctx;
        this.pipeline = new DirectPublishPipeline(ctx);
    }

    public Mono<WriteOutcome> execute(String branch, MutationPlan plan, BoundParams params, Instant now,
                                      Optional<String> actorId, Optional<String> ifGraphCommit,
                                      Optional<IdempotentRequest> idempotency) {
        DirectPublishPipeline.GroupPlan planned = (token, before) -> {
            Map<String, TableEntry> pins = new HashMap<>();
            token.state().liveTables().forEach(entry -> pins.put(entry.tableKey(), entry));
            // The handle's kept key sets: a keyed insert of a new key stages as an append (MutationStaging).
            CommittedRows committed = new CommittedRows(ctx, CommittedKeyCache.of(ctx).keySets(ctx));
            return new MutationStaging(ctx.catalog(), pins, committed, params, now).after(before).run(plan)
                    .flatMap(changes -> new ChangeValidator(ctx.catalog(), pins, committed).validate(changes));
        };
        // Deletes stage as predicates, which cannot share one Lance transaction with other writes' rows.
        boolean constructive = plan.statements().stream().noneMatch(MutationPlan.Delete.class::isInstance);
        return pipeline.run(new DirectPublishPipeline.Request(branch, actorId, Sidecar.WriterKind.Mutation,
                "mutation:" + plan.name(), "mutation", ifGraphCommit, token -> planned.plan(token, ChangeSet.none()),
                idempotency, constructive ? Optional.of(planned) : Optional.empty()));
    }
}
