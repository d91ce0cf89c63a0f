package dev.omnigraph.storage.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.ArrayList;
import java.util.List;
import java.util.Timer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import reactor.core.scheduler.Schedulers;

class HangDiagnosticsTest {
    private static final String LAUNCHED = "omnigraph.test.hang-diagnostics";

    /** Hangs until its timeout; runs only through the launcher below (a pattern run of every class skips it). */
    static class Stalls {
        static boolean launchedByTheTest(ExtensionContext context) {
            return context.getConfigurationParameter(LAUNCHED).isPresent();
        }

        @Test
        @EnabledIf("launchedByTheTest")
        @Timeout(value = 200, unit = TimeUnit.MILLISECONDS)
        void waitsForever() throws InterruptedException {
            new CountDownLatch(1).await();
        }
    }

    @Test
    void aTimedOutTestSaysWhereItsThreadWaitedAndWhichWorkerIsStuck() throws InterruptedException {
        // A worker waiting outside project code (a Timer's thread, named like a Reactor worker): what would hold
        // back every timer queued behind it without showing a single project frame.
        Timer stuckWorker = new Timer("parallel-hang-diagnostics-test");
        // A failure thrown inside a worker task: what aborts a signal mid-flight (a BlockHound error, say). Error
        // hooks run in the order they were added, so once this test's own hook has seen it, HangDiagnostics has too.
        HangDiagnostics.watchWorkerFailures(); // as the launcher session does (again: the same key, the same hook)
        CountDownLatch recorded = new CountDownLatch(1);
        Schedulers.onHandleError(HangDiagnosticsTest.class.getName(), (thread, failure) -> recorded.countDown());
        Schedulers.parallel().schedule(() -> {
            throw new IllegalStateException("worker task failed for the test");
        });
        assertThat(recorded.await(1, TimeUnit.MINUTES)).as("the worker failure was handled").isTrue();
        Schedulers.resetOnHandleError(HangDiagnosticsTest.class.getName());
        try {
            assertThat(launchStalls()).singleElement().satisfies(failure -> {
                assertThat(failure).isInstanceOf(HangDiagnostics.HungTest.class);
                assertThat(failure.getMessage()).startsWith("waitsForever() timed out after 200 milliseconds; test thread at ")
                        .contains("HangDiagnosticsTest$Stalls.waitsForever:")
                        .contains("scheduler threads not idle: parallel-hang-diagnostics-test (WAITING")
                        .contains("TimerThread.mainLoop")
                        .containsPattern("last failures in scheduler workers: parallel-\\d+: java.lang.IllegalStateException: "
                                + "worker task failed for the test");
            });
        } finally {
            stuckWorker.cancel();
        }
    }

    private static List<Throwable> launchStalls() {
        List<Throwable> failures = new ArrayList<>();
        LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(Stalls.class))
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                .configurationParameter(LAUNCHED, "true")
                .build(), new TestExecutionListener() {
                    @Override
                    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                        result.getThrowable().ifPresent(failures::add);
                    }
                });
        return failures;
    }
}
