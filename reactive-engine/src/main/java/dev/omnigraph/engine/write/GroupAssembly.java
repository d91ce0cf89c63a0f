package dev.omnigraph.engine.write;

import dev.omnigraph.storage.error.ResourceLimitExceeded;
import dev.omnigraph.storage.manifest.IdempotencyRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.function.BiFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Plans the writes of one queue turn, in arrival order, into one group against one token: each write is planned
 * and validated on top of the union of the writes accepted before it (so it sees them exactly as if each had
 * committed alone), and becomes the new union. A write whose plan or validation fails, whose precondition does not
 * hold, whose key is already recorded or that was cancelled is settled alone and the others go on. A write that
 * would push the union over the write limits closes the group; it and the rest wait for the next group.
 */
final class GroupAssembly {
    /** A write in the group and its own change (its own counts; its changes are the union up to it). */
    record Accepted(QueuedWrite write, ChangeSet own) {
    }

    /** The assembled group: accepted writes in order, their union, what to publish, and the writes left over. */
    record Group(List<Accepted> accepted, ChangeSet union, Publication publication, List<QueuedWrite> leftover) {
        boolean anyCancelled() {
            return accepted.stream().anyMatch(member -> member.write().cancelled().get());
        }
    }

    private final WriteContext ctx;
    private final WriteToken token;
    private final Settlements settled;
    private final BiFunction<DirectPublishPipeline.Request, WriteToken, Mono<Optional<WriteOutcome>>> recorded;
    private final List<Accepted> accepted = new ArrayList<>();
    private final List<QueuedWrite> leftover = new ArrayList<>();
    private ChangeSet union = ChangeSet.none();

    GroupAssembly(WriteContext ctx, WriteToken token, Settlements settled,
                  BiFunction<DirectPublishPipeline.Request, WriteToken, Mono<Optional<WriteOutcome>>> recorded) {
        this.ctx = ctx;
        this.token = token;
        this.settled = settled;
        this.recorded = recorded;
    }

    Mono<Group> assemble(List<QueuedWrite> writes) {
        return Flux.fromIterable(writes).concatMap(this::add).then(Mono.fromSupplier(this::group));
    }

    private Mono<Void> add(QueuedWrite write) {
        if (!leftover.isEmpty()) {
            leftover.add(write);
            return Mono.empty();
        }
        if (write.cancelled().get()) {
            settled.fail(write, new CancellationException("write cancelled while queued"));
            return Mono.empty();
        }
        DirectPublishPipeline.Request request = write.request();
        return recorded.apply(request, token).flatMap(replay -> {
            if (replay.isPresent()) {
                settled.succeed(write, replay.get());
                return Mono.<Void>empty();
            }
            DirectPublishPipeline.checkPrecondition(request.ifGraphCommit(), token);
            ChangeSet before = union;
            Mono<ChangeSet> planned = request.groupPlan()
                    .map(plan -> plan.plan(token, before))
                    .orElseGet(() -> request.prepare().apply(token));
            return planned.doOnNext(next -> accept(write, before, next)).then();
        }).onErrorResume(error -> {
            settled.fail(write, error);
            return Mono.empty();
        });
    }

    private void accept(QueuedWrite write, ChangeSet before, ChangeSet next) {
        boolean ownNothing = next.changes().equals(before.changes())
                && next.entitiesByTable().values().stream().allMatch(count -> count == 0) && !next.commitWhenEmpty();
        if (ownNothing) {
            settled.succeed(write, WriteOutcome.nothing());
            return;
        }
        try {
            WriteLimitCheck.enforce(next, ctx.limits());
        } catch (ResourceLimitExceeded tooBig) {
            if (accepted.isEmpty()) {
                throw tooBig;
            }
            leftover.add(write); // alone it may fit: it leads the next group
            return;
        }
        accepted.add(new Accepted(write, next));
        union = next;
    }

    private Group group() {
        if (accepted.isEmpty()) {
            return new Group(List.of(), union, null, List.copyOf(leftover));
        }
        DirectPublishPipeline.Request first = accepted.get(0).write().request();
        Map<String, Long> counts = new HashMap<>();
        boolean reprepare = true;
        Optional<IdempotencyRecord> idempotency = Optional.empty();
        List<String> operations = new ArrayList<>();
        for (Accepted member : accepted) {
            member.own().entitiesByTable().forEach((table, count) -> counts.merge(table, count, Long::sum));
            reprepare &= member.own().reprepareOnMovedHead();
            operations.add(member.write().request().operation());
            Optional<IdempotentRequest> keyed = member.write().request().idempotency();
            if (keyed.isPresent()) {
                ChangeSet own = member.own();
                idempotency = Optional.of(new IdempotencyRecord(keyed.get().key(), keyed.get().requestHash(),
                        own.affectedNodes(), own.affectedEdges(), new TreeMap<>(own.entitiesByTable())));
            }
        }
        String operation = operations.size() == 1 ? operations.get(0)
                : "group of " + operations.size() + ": " + String.join("; ", operations);
        Publication publication = new Publication(first.branch(), first.actorId(), first.writerKind(), operation,
                first.failpointPrefix(), first.ifGraphCommit(), idempotency, first.mergedParent());
        return new Group(List.copyOf(accepted), new ChangeSet(union.changes(), counts, reprepare, union.commitWhenEmpty()), publication,
                List.copyOf(leftover));
    }
}
