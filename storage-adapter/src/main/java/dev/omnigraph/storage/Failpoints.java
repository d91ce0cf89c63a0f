package dev.omnigraph.storage;

import dev.omnigraph.storage.error.StorageFault;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * Named points at every phase boundary of every writer, where tests make the process die, fail, stall or park.
 * Armed from {@code OMNIGRAPH_FAILPOINTS="name=action,…"} or the system property {@code omnigraph.failpoints}
 * (actions: {@code exit} = {@code Runtime.halt(137)}, {@code error} = an injected storage fault,
 * {@code delay(ms)}; any of them suffixed {@code @n} acts on the n-th hit only), or programmatically with
 * {@link #arm} and {@link #park}. Unarmed cost: one map lookup.
 */
public final class Failpoints {
    public static final String ENV = "OMNIGRAPH_FAILPOINTS";
    public static final String PROPERTY = "omnigraph.failpoints";
    public static final int EXIT_CODE = 137;

    /** What happens when an armed point is hit. */
    public sealed interface Action {
        record Exit() implements Action {
        }

        record Error() implements Action {
        }

        record Delay(long millis) implements Action {
        }

        /** Waits, without holding a thread, until the test releases {@code parked}; see {@link Failpoints#park}. */
        record Park(Parked parked) implements Action {
        }

        /** {@code action} on the {@code hit}-th hit (1-based) only; every other hit passes through. */
        record OnHit(int hit, Action action) implements Action {
            public OnHit {
                if (hit < 1 || action instanceof OnHit) {
                    throw new IllegalArgumentException("a failpoint hit number is 1-based and applies to a plain action");
                }
            }
        }
    }

    private final Map<String, Action> armed = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> hits = new ConcurrentHashMap<>();

    public static Failpoints none() {
        return new Failpoints();
    }

    /** Reads the environment variable, then the system property (which wins for a name given in both). */
    public static Failpoints fromEnvironment() {
        Failpoints points = new Failpoints();
        points.armAll(System.getenv(ENV));
        points.armAll(System.getProperty(PROPERTY));
        return points;
    }

    /** Parses {@code "a=exit,b=delay(50),c=error@2"}; an unknown action is refused so a typo cannot silently disarm a test. */
    public void armAll(String spec) {
        if (spec == null || spec.isBlank()) {
            return;
        }
        for (String entry : spec.split(",")) {
            String trimmed = entry.trim();
            int eq = trimmed.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("failpoint '" + trimmed + "' must look like name=action");
            }
            arm(trimmed.substring(0, eq).trim(), parse(trimmed.substring(eq + 1).trim()));
        }
    }

    static Action parse(String action) {
        int at = action.lastIndexOf('@');
        if (at > 0) {
            String hit = action.substring(at + 1).trim();
            try {
                return new Action.OnHit(Integer.parseInt(hit), parse(action.substring(0, at).trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("failpoint hit number '" + hit + "' is not a positive integer");
            }
        }
        if (action.equals("exit")) return new Action.Exit();
        if (action.equals("error")) return new Action.Error();
        if (action.startsWith("delay(") && action.endsWith(")")) {
            return new Action.Delay(Long.parseLong(action.substring(6, action.length() - 1).trim()));
        }
        // park has no textual form: only the code that armed it can release it.
        throw new IllegalArgumentException("unknown failpoint action '" + action + "' (exit, error, delay(ms), each optionally @n)");
    }

    /** Arms {@code name} (replacing any earlier action) and restarts its hit count. */
    public Failpoints arm(String name, Action action) {
        hits.remove(name);
        armed.put(name, action);
        return this;
    }

    /**
     * Arms {@code name} to park every write that reaches it until {@link Parked#release()}; the handle signals
     * when the first one arrived. A parked pipeline waits on a {@code Mono}: no thread is held while it waits.
     */
    public Parked park(String name) {
        Parked parked = new Parked(name);
        arm(name, new Action.Park(parked));
        return parked;
    }

    public void disarm(String name) {
        armed.remove(name);
        hits.remove(name);
    }

    /** Completes empty when {@code name} is unarmed; otherwise dies, fails, waits or parks as armed. */
    public Mono<Void> hit(String name) {
        Action action = armed.get(name);
        if (action == null) {
            return Mono.empty();
        }
        return Mono.defer(() -> {
            if (action instanceof Action.OnHit onHit) {
                int hit = hits.computeIfAbsent(name, unused -> new AtomicInteger()).incrementAndGet();
                return hit == onHit.hit() ? perform(name, onHit.action()) : Mono.empty();
            }
            return perform(name, action);
        });
    }

    private static Mono<Void> perform(String name, Action action) {
        if (action instanceof Action.Exit) {
            return Mono.fromRunnable(() -> {
                System.out.flush();
                Runtime.getRuntime().halt(EXIT_CODE);
            });
        }
        if (action instanceof Action.Error) {
            return Mono.error(new StorageFault("failpoint " + name + " injected a storage fault", null));
        }
        if (action instanceof Action.Park park) {
            return park.parked().arrive();
        }
        return Mono.delay(Duration.ofMillis(((Action.Delay) action).millis())).then();
    }

    /**
     * A test's handle on a parked failpoint: {@link #reached()} completes once a write is parked there,
     * {@link #release()} lets every parked (and later) write through.
     */
    public static final class Parked {
        /** How long {@link #reached()} waits before failing the test instead of hanging it. */
        public static final Duration REACH_TIMEOUT = Duration.ofSeconds(60);

        private final String name;
        private final Sinks.Empty<Void> reached = Sinks.empty();
        private final Sinks.Empty<Void> released = Sinks.empty();
        private final AtomicBoolean arrived = new AtomicBoolean();

        Parked(String name) {
            this.name = name;
        }

        Mono<Void> arrive() {
            return Mono.defer(() -> {
                arrived.set(true);
                reached.tryEmitEmpty(); // only the first arrival matters; later ones find it already emitted
                // Resume on a parallel worker, not inside the test thread that calls release().
                return released.asMono().publishOn(Schedulers.parallel());
            });
        }

        /**
         * Completes when the first write reached the point; fails after {@link #REACH_TIMEOUT} naming the point.
         * Non-blocking; the test thread is the one that waits on it.
         */
        public Mono<Void> reached() {
            return reached.asMono().timeout(REACH_TIMEOUT, Mono.error(() -> new IllegalStateException(
                    "no write reached failpoint " + name + " within " + REACH_TIMEOUT)));
        }

        /** Whether a write has reached the point (without waiting). */
        public boolean isReached() {
            return arrived.get();
        }

        /** Lets the parked writes (and any later hit) continue. */
        public void release() {
            released.tryEmitEmpty();
        }
    }
}
