package dev.omnigraph.storage.testing;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.PreInterruptCallback;
import org.junit.jupiter.api.extension.PreInterruptContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import reactor.core.scheduler.Schedulers;

/**
 * Makes a test that hit its JUnit timeout say where it hung, in the failure itself. Surefire sends a test's
 * output to a report file that a CI log does not show, so JUnit's own thread dump is lost there; the failure
 * message (which the build log prints) is the one place that reaches us. Just before JUnit interrupts the test
 * thread this records where that thread waits and which of the project's threads are busy, and the timeout
 * failure is rethrown with that summary on its first line.
 *
 * <p>Registered for every module's tests through {@code META-INF/services} (JUnit extension auto-detection).
 */
public final class HangDiagnostics implements PreInterruptCallback, TestExecutionExceptionHandler {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(HangDiagnostics.class);
    private static final int FRAMES = 8;
    private static final List<String> SCHEDULER_THREADS =
            List.of("parallel-", "single-", "boundedElastic-", "omnigraph-storage-", "reactor-http-");
    private static final List<String> IDLE_WAITS = List.of("ThreadPoolExecutor.getTask",
            "ScheduledThreadPoolExecutor$DelayedWorkQueue.take", "SelectorImpl.select", "SelectorImpl.lockAndDoSelect",
            "Native.epollWait", "Native.epollWait0", "Native.epollBusyWait", "Native.kqueueWait");

    /**
     * The last failures thrown inside scheduler workers (a BlockHound error there aborts a signal mid-flight, and the
     * subscriber waits forever): Reactor only logs them, to the test's output file, which a CI log does not show.
     */
    private static final Deque<String> WORKER_FAILURES = new ConcurrentLinkedDeque<>();
    private static final int KEPT_FAILURES = 3;

    /**
     * Starts recording worker failures (once per JVM; the launcher session does it before any test runs, so that a
     * failure long before the hang is on record).
     */
    public static void watchWorkerFailures() {
        Schedulers.onHandleError(HangDiagnostics.class.getName(), (thread, failure) -> {
            WORKER_FAILURES.addLast(thread.getName() + ": " + failure);
            while (WORKER_FAILURES.size() > KEPT_FAILURES) WORKER_FAILURES.pollFirst();
        });
    }

    @Override
    public void beforeThreadInterrupt(PreInterruptContext interrupt, ExtensionContext context) {
        context.getStore(NAMESPACE).put("where", describe(interrupt.getThreadToInterrupt()));
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable thrown) throws Throwable {
        String where = context.getStore(NAMESPACE).remove("where", String.class);
        if (where == null) throw thrown;
        throw new HungTest(thrown.getMessage() + "; " + where, thrown);
    }

    /**
     * The hung thread's project frames, then every other thread currently inside project or Lance code, then every
     * scheduler thread (Reactor, Netty, storage) that is not idle in its pool: a worker stuck in library code holds
     * back every task queued behind it (a timer, a {@code publishOn}) without showing a single project frame.
     */
    static String describe(Thread hung) {
        List<String> busy = new ArrayList<>();
        List<String> stuckWorkers = new ArrayList<>();
        String hungAt = "";
        for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
            String frames = ownFrames(info.getStackTrace());
            if (info.getThreadId() == hung.getId()) {
                hungAt = frames;
            } else if (!frames.isEmpty()) {
                busy.add(info.getThreadName() + " (" + info.getThreadState() + ") at " + frames);
            } else if (isSchedulerThread(info.getThreadName()) && !idleInPool(info.getStackTrace())) {
                stuckWorkers.add(info.getThreadName() + " (" + info.getThreadState()
                        + (info.getLockName() == null ? "" : " on " + info.getLockName()
                        + (info.getLockOwnerName() == null ? "" : " held by " + info.getLockOwnerName()))
                        + ") at " + topFrames(info.getStackTrace()));
            }
        }
        return "test thread at " + hungAt + (busy.isEmpty() ? "; no other thread in project code"
                : "; other threads: " + String.join(" | ", busy))
                + (stuckWorkers.isEmpty() ? "" : "; scheduler threads not idle: " + String.join(" | ", stuckWorkers))
                + (WORKER_FAILURES.isEmpty() ? "" : "; last failures in scheduler workers: " + String.join(" | ", WORKER_FAILURES));
    }

    static boolean isSchedulerThread(String name) {
        return SCHEDULER_THREADS.stream().anyMatch(name::startsWith);
    }

    /** A pool thread waiting for its next task (or a Netty loop waiting for I/O) is idle, whatever its state. */
    private static boolean idleInPool(StackTraceElement[] stack) {
        return Arrays.stream(stack).anyMatch(f -> IDLE_WAITS.contains(simpleName(f.getClassName()) + "." + f.getMethodName()));
    }

    private static String topFrames(StackTraceElement[] stack) {
        return Arrays.stream(stack).limit(FRAMES)
                .map(f -> simpleName(f.getClassName()) + "." + f.getMethodName() + ":" + f.getLineNumber())
                .collect(Collectors.joining(" < "));
    }

    private static String ownFrames(StackTraceElement[] stack) {
        return Arrays.stream(stack)
                .filter(f -> f.getClassName().startsWith("dev.omnigraph") || f.getClassName().startsWith("org.lance."))
                .limit(FRAMES)
                .map(f -> simpleName(f.getClassName()) + "." + f.getMethodName() + ":" + f.getLineNumber())
                .collect(Collectors.joining(" < "));
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    /** The timeout, with where it hung in the message and JUnit's own failure as its cause. */
    static final class HungTest extends AssertionError {
        HungTest(String message, Throwable timeout) {
            super(message, timeout);
        }
    }
}
