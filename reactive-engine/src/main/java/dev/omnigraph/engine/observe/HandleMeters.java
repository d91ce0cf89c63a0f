package dev.omnigraph.engine.observe;

import dev.omnigraph.storage.StorageCallCounter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
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

    /** A gauge on {@code owner} (held weakly) named {@code name}. */
    public static <T> void gauge(MeterRegistry meters, String name, String description, T owner, ToDoubleFunction<T> value) {
        Gauge.builder(name, owner, value).description(description).register(meters);
    }
}
