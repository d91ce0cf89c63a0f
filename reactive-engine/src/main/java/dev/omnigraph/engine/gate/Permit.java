package dev.omnigraph.engine.gate;

/** A held gate (or set of gates). {@link #release()} is idempotent: only the first call releases. */
public interface Permit {
    void release();

    /** {@link #release()} as a {@code Mono}, for {@code Mono.usingWhen}. */
    default reactor.core.publisher.Mono<Void> releaseAsync() {
        return reactor.core.publisher.Mono.fromRunnable(this::release);
    }
}
