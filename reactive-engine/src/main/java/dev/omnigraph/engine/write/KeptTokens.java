package dev.omnigraph.engine.write;

import dev.omnigraph.recovery.Sidecar;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import reactor.core.publisher.Mono;

/**
 * A queue turn's first plan may start from the branch state this process kept (its last load or publish) instead
 * of reading the live manifest version: in this process only the writer holding the branch gate publishes on the
 * branch, so that state is normally live, and the recheck under the gates reads the live version before any
 * effect, replanning every write of the turn (strict ones too: none saw a live head move) when another process
 * moved it. Only what the plan itself decides needs care: a write the plan settles without publishing (refused
 * by validation, or with nothing to do) keeps that outcome only once the state it was planned on is verified live.
 */
final class KeptTokens {
    private KeptTokens() {
    }

    /**
     * The kept state's token for a first plan of plain mutations (no precondition on the head, no idempotency key,
     * no merge), else (and on every replan) one read live.
     */
    static Mono<WriteToken> first(WriteContext ctx, List<QueuedWrite> writes, String branch, int reprepares) {
        boolean plain = reprepares == 0 && writes.stream().map(QueuedWrite::request).allMatch(request ->
                request.writerKind() == Sidecar.WriterKind.Mutation && request.ifGraphCommit().isEmpty()
                        && request.idempotency().isEmpty() && request.mergeSource().isEmpty());
        Mono<WriteToken> live = WriteToken.capture(ctx.manifest(), branch, ctx.schemaIrHash());
        return plain ? Mono.defer(() -> WriteToken.kept(ctx.manifest(), branch, ctx.schemaIrHash()).orElse(live)) : live;
    }

    /**
     * Assembles the turn's group on {@code token}. On a kept (unverified) token, the outcomes the assembly settles
     * are held apart until the live manifest confirms the token; empty when it does not (plan the turn again).
     */
    static Mono<Optional<GroupAssembly.Group>> assemble(WriteContext ctx, WriteToken token, List<QueuedWrite> writes,
            Settlements settled,
            BiFunction<DirectPublishPipeline.Request, WriteToken, Mono<Optional<WriteOutcome>>> recorded) {
        if (token.verified()) {
            return new GroupAssembly(ctx, token, settled, recorded).assemble(writes).map(Optional::of);
        }
        Settlements held = new Settlements();
        return new GroupAssembly(ctx, token, held, recorded).assemble(writes).flatMap(group -> {
            if (held.isEmpty()) {
                return Mono.just(Optional.of(group)); // every write planned an effect: the recheck verifies
            }
            return WriteToken.capture(ctx.manifest(), token.branch(), ctx.schemaIrHash()).map(live -> {
                if (!token.sameAuthority(live)) {
                    return Optional.<GroupAssembly.Group>empty();
                }
                held.copyInto(settled);
                return Optional.of(group);
            });
        });
    }
}
