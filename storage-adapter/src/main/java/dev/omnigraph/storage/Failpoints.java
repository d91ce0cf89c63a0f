package dev.omnigraph.storage;

import dev.omnigraph.storage.error.StorageFault;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Mono;

/**
 * Named points at every phase boundary of every writer, where tests make the process die, fail or stall.
 * Armed from {@code OMNIGRAPH_FAILPOINTS="name=action,…"} or the system property {@code omnigraph.failpoints}
 * (actions: {@code exit} = {@code Runtime.halt(137)}, {@code error} = an injected storage fault,
 * {@code delay(ms)}), or programmatically with {@link #arm}. Unarmed cost: one map lookup.
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
    }

    private final Map<String, Action> armed = new ConcurrentHashMap<>();

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

    /** Parses {@code "a=exit,b=delay(50)"}; an unknown action is refused so a typo cannot silently disarm a test. */
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
        if (action.equals("exit")) return new Action.Exit();
        if (action.equals("error")) return new Action.Error();
        if (action.startsWith("delay(") && action.endsWith(")")) {
            return new Action.Delay(Long.parseLong(action.substring(6, action.length() - 1).trim()));
        }
        throw new IllegalArgumentException("unknown failpoint action '" + action + "' (exit, error, delay(ms))");
    }

    public Failpoints arm(String name, Action action) {
        armed.put(name, action);
        return this;
    }

    public void disarm(String name) {
        armed.remove(name);
    }

    /** Completes empty when {@code name} is unarmed; otherwise dies, fails or waits as armed. */
    public Mono<Void> hit(String name) {
        Action action = armed.get(name);
        if (action == null) {
            return Mono.empty();
        }
        if (action instanceof Action.Exit) {
            return Mono.fromRunnable(() -> {
                System.out.flush();
                Runtime.getRuntime().halt(EXIT_CODE);
            });
        }
        if (action instanceof Action.Error) {
            return Mono.error(new StorageFault("failpoint " + name + " injected a storage fault", null));
        }
        return Mono.delay(Duration.ofMillis(((Action.Delay) action).millis())).then();
    }
}
