package dev.omnigraph.storage.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.ArrayList;
import java.util.List;
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
    void aTimedOutTestSaysWhereItsThreadWaited() {
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
        assertThat(failures).singleElement().satisfies(failure -> {
            assertThat(failure).isInstanceOf(HangDiagnostics.HungTest.class);
            assertThat(failure.getMessage()).startsWith("waitsForever() timed out after 200 milliseconds; test thread at ")
                    .contains("HangDiagnosticsTest$Stalls.waitsForever:");
        });
    }
}
