package dev.omnigraph.engine.internal;

import dev.omnigraph.engine.diff.ChangeLimits;
import dev.omnigraph.engine.diff.Changes;
import dev.omnigraph.engine.gate.Gates;
import dev.omnigraph.engine.write.IdempotencyIndex;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.ObjectStore;
import java.util.Objects;
import java.util.function.Function;
import reactor.core.publisher.Flux;

/**
 * What the engine's own modules and tests reach on a graph handle beyond the public API. Obtained with
 * {@link #of(Object)}; the handle installs the implementation when its class initialises (the usual "shared
 * secrets" arrangement), so the public type carries none of these methods. The handle is taken as an
 * {@code Object} so that this package never names the public API's package (which names this one).
 */
public abstract class HandleInternals {
    private static volatile Function<Object, HandleInternals> access;

    /** For the engine's implementation only. */
    protected HandleInternals() {
    }

    /** The internals of {@code graph}, an open graph handle; anything else is an {@code IllegalArgumentException}. */
    public static HandleInternals of(Object graph) {
        Objects.requireNonNull(graph, "graph");
        return access.apply(graph); // set: a live handle means its class has initialised
    }

    /** Called once, by the handle class's initialiser. */
    public static synchronized void install(Function<Object, HandleInternals> implementation) {
        if (access != null) {
            throw new IllegalStateException("handle internals are installed already");
        }
        access = Objects.requireNonNull(implementation, "implementation");
    }

    /** The process-local gates of the handle's root (shared with every other handle on it). */
    public abstract Gates gates();

    /** The idempotency keys of the handle's root (shared with every other handle on it in this process). */
    public abstract IdempotencyIndex idempotencyIndex();

    /** The failpoints of this handle (armed from the environment; tests arm more). */
    public abstract Failpoints failpoints();

    /** The root's small-object store (its directory or S3 prefix), for files kept beside the graph: stored queries. */
    public abstract ObjectStore objectStore();

    /** Recovery sidecars pending on the graph (empty in steady state), oldest first. */
    public abstract Flux<Sidecar> pendingSidecars();

    /**
     * Sets how many commits of this handle to one table are followed by a minor compaction of its small fragments
     * (0, the default, turns them off).
     */
    public abstract void minorCompactionEvery(int commitsPerTable);

    /** The change engine (commit diffs, feed, row deltas) of this handle, with page bounds {@code limits}. */
    public abstract Changes changes(ChangeLimits limits);
}
