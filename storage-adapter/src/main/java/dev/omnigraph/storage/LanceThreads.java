package dev.omnigraph.storage;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lance 7 sizes its pool for compute-intensive work as the CPUs minus its I/O reservation, and falls back to one
 * thread when that leaves none: on a machine of one or two cores, one thread. There a vector index build (IVF over
 * 100,000 rows, the {@code nearest-indexed} benchmark) deadlocked inside lance-core 7.0.0's {@code createIndex}:
 * every Lance thread parked, no CPU, no I/O, forever. With {@value #ENV}{@code =8} the same build took 1.6 s. Lance
 * reads the variable once, natively, so only the environment that starts the JVM can set it: the launchers and the
 * test suite do; an embedding service must. This warns, once per process, when it is missing where it matters.
 */
final class LanceThreads {
    static final String ENV = "LANCE_CPU_THREADS";
    /** Below this many CPUs Lance's default leaves one compute thread. */
    static final int SMALL_MACHINE_CPUS = 4;
    private static final Logger LOG = LoggerFactory.getLogger(LanceThreads.class);
    private static final AtomicBoolean CHECKED = new AtomicBoolean();

    private LanceThreads() {
    }

    /** What to tell the operator, if anything, given the process environment and the CPUs the JVM sees. */
    static Optional<String> advice(Map<String, String> environment, int cpus) {
        String set = environment.get(ENV);
        if (set != null && !set.isBlank() || cpus >= SMALL_MACHINE_CPUS) {
            return Optional.empty();
        }
        return Optional.of("this JVM sees " + cpus + " CPU(s) and " + ENV + " is not set: Lance then runs compute work on "
                + "one thread, and a vector index build can hang; start the JVM with " + ENV + "=8 (bin/omnigraph does)");
    }

    /** Logs {@link #advice} once per process. */
    static void checkOnce() {
        if (CHECKED.compareAndSet(false, true)) {
            advice(System.getenv(), Runtime.getRuntime().availableProcessors()).ifPresent(LOG::warn);
        }
    }
}
