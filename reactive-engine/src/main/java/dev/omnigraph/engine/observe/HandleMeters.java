package dev.omnigraph.engine.observe;

import dev.omnigraph.storage.StorageCallCounter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Meters read from state the engine keeps anyway, so they cost nothing until a registry is scraped: storage calls
 * by class (the {@link StorageCallCounter} the counting seam already keeps) and the handle's gauges. A gauge holds
 * its handle weakly (Micrometer's default): a closed and collected handle reports NaN instead of being kept alive.
 */
public final class HandleMeters {
    private HandleMeters() {
    }

    /**
     * {@code omnigraph.storage.calls} (a function timer: count and time per call class, tag {@code call}) and
     * {@code omnigraph.storage.volume} (rows or bytes delivered, tag {@code kind}). Registered once per counter:
     * a second handle on the same services finds them already there.
     */
    public static void bindStorage(MeterRegistry meters, StorageCallCounter counter) {
        if (meters.find("omnigraph.storage.calls").meter() != null) {
            return; // bound by an earlier handle (to the same per-registry counter, see counterFor)
        }
        for (StorageCallCounter.Call call : StorageCallCounter.Call.values()) {
            if (call.isVolume()) {
                FunctionCounter.builder("omnigraph.storage.volume", counter, c -> c.get(call))
                        .description("rows or bytes storage calls delivered").tag("kind", call.label())
                        .register(meters);
            } else {
                FunctionTimer.builder("omnigraph.storage.calls", counter, c -> c.get(call), c -> c.nanos(call),
                                TimeUnit.NANOSECONDS)
                        .description("storage calls by class, timed from subscription to first terminal signal")
                        .tag("call", call.label()).register(meters);
            }
        }
    }

    private static final Map<MeterRegistry, StorageCallCounter> COUNTERS = new WeakHashMap<>();

    /**
     * The one counter of every handle the builder wraps for {@code meters}: the registry's storage meters are
     * bound once, so handles opened later (or again) must add to the same counter, not to a fresh one nobody reads.
     */
    public static StorageCallCounter counterFor(MeterRegistry meters) {
        synchronized (COUNTERS) {
            return COUNTERS.computeIfAbsent(meters, registry -> new StorageCallCounter());
        }
    }

    /**
     * What a live handle shows the gauges. Handles of one root share its queues and sidecar view, so those
     * readings count once per {@link #root()}.
     */
    public interface Readings {
        String root();

        int queuedWrites();

        int knownSidecars();

        boolean holdsTenure();

        long epoch();
    }

    /** The live handles of one registry; the gauges read them all (a gauge is registered once per name). */
    private static final class LiveHandles {
        private final Set<Readings> handles = Collections.newSetFromMap(new WeakHashMap<>());

        synchronized double perRoot(ToDoubleFunction<Readings> reading) {
            Map<String, Double> byRoot = new java.util.HashMap<>();
            handles.forEach(handle -> byRoot.put(handle.root(), reading.applyAsDouble(handle)));
            return byRoot.values().stream().mapToDouble(Double::doubleValue).sum();
        }

        synchronized double over(ToDoubleFunction<Readings> reading, java.util.function.DoubleBinaryOperator fold) {
            return handles.stream().mapToDouble(reading).reduce(0, fold);
        }
    }

    private static final Map<MeterRegistry, LiveHandles> LIVE = new WeakHashMap<>();

    /**
     * Counts {@code handle} in {@code meters}' gauges until {@link #unbind}: {@code omnigraph.branch.queue.depth}
     * and {@code omnigraph.recovery.pending.sidecars} (summed per root), {@code omnigraph.lease.held} (handles
     * holding a writer tenure) and {@code omnigraph.lease.epoch} (the highest epoch held).
     */
    public static void bind(MeterRegistry meters, Readings handle) {
        LiveHandles live;
        synchronized (LIVE) {
            live = LIVE.get(meters);
            if (live == null) {
                live = new LiveHandles();
                LIVE.put(meters, live);
                LiveHandles all = live;
                Gauge.builder("omnigraph.branch.queue.depth", all, a -> a.perRoot(Readings::queuedWrites))
                        .description("writes waiting in the branch queues of the roots open here").strongReference(true)
                        .register(meters);
                Gauge.builder("omnigraph.recovery.pending.sidecars", all, a -> a.perRoot(Readings::knownSidecars))
                        .description("recovery sidecars the writers open here know of (in flight or left for recovery)")
                        .strongReference(true).register(meters);
                Gauge.builder("omnigraph.lease.held", all, a -> a.over(h -> h.holdsTenure() ? 1 : 0, Double::sum))
                        .description("open handles holding their root's writer tenure (0: read-only or follower)")
                        .strongReference(true).register(meters);
                Gauge.builder("omnigraph.lease.epoch", all, a -> a.over(Readings::epoch, Math::max))
                        .description("the highest writer epoch the handles open here publish under")
                        .strongReference(true).register(meters);
            }
        }
        synchronized (live) {
            live.handles.add(handle);
        }
    }

    /** Stops counting {@code handle} (it closed). */
    public static void unbind(MeterRegistry meters, Readings handle) {
        LiveHandles live;
        synchronized (LIVE) {
            live = LIVE.get(meters);
        }
        if (live != null) {
            synchronized (live) {
                live.handles.remove(handle);
            }
        }
    }
}
