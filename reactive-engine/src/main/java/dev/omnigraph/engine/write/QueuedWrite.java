package dev.omnigraph.engine.write;

import io.micrometer.observation.Observation;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Sinks;

/**
 * One write waiting in its branch's queue: the pipeline (and so the handle context) that accepted it, the request,
 * whether its subscriber gave up, where its outcome goes once the turn that carried it has released its gates, and
 * its observation (null when none), under which a turn it leads records its steps.
 */
record QueuedWrite(DirectPublishPipeline pipeline, DirectPublishPipeline.Request request, AtomicBoolean cancelled,
                   Sinks.One<WriteOutcome> result, Observation observation) {

    boolean groupable() {
        return request.groupPlan().isPresent();
    }

    /**
     * True when this write may share one commit with {@code first}: both plan as a group, on the same handle
     * context, as the same writer kind and actor (one commit row has one of each); no precondition (a precondition
     * names the head before its write, which only the first write of a group has); and not a second idempotency
     * key (one commit row records one).
     */
    boolean joins(QueuedWrite first, boolean keyedAlready) {
        return groupable() && first.groupable()
                && pipeline.context().equals(first.pipeline.context())
                && request.writerKind() == first.request.writerKind()
                && request.actorId().equals(first.request.actorId())
                && request.failpointPrefix().equals(first.request.failpointPrefix())
                && request.ifGraphCommit().isEmpty()
                && !(keyedAlready && request.idempotency().isPresent());
    }
}
