package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.internal.HandleInternals;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.testing.ChildJvm;
import dev.omnigraph.storage.testing.S3TestServer;
import dev.omnigraph.storage.testing.StorageFixture;
import dev.omnigraph.storage.testing.TestClock;
import dev.omnigraph.storage.root.GraphRoot;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30, item 4, on the loopback S3 server: a writer pauses (a long GC, a partition) right after arming its
 * sidecar; its lease expires and this process takes the root over (a higher writer epoch fences the manifest) and
 * recovers the armed intent. The old holder then resumes, not knowing it lost the lease: its table commit lands
 * (Lance has no conditional commit on our epoch), but nothing it does is ever seen — its publish is refused, it
 * restores nothing (a fenced-out writer does not compensate), and the intent it confirmed is never rolled forward,
 * because its captured writer epoch is not the manifest's any more. The next read-write open reclaims the stray
 * table version (rolled back under the new epoch) and the graph takes writes again.
 */
class S3PausedHolderTest {
    private static StorageServices services;
    private static S3TestServer server;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws Exception {
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
        server = S3TestServer.start();
    }

    @AfterAll
    static void stop() throws Exception {
        services.tables().close();
        server.close();
    }

    long personHead(Omnigraph graph) {
        var table = graph.snapshot(ReadTarget.main()).block().table("node:Person").orElseThrow();
        return services.tables().head(new TableRef(graph.location().uri() + "/" + table.path(), table.lanceBranch())).block();
    }

    long personPin(Omnigraph graph) {
        return graph.snapshot(ReadTarget.main()).block().table("node:Person").orElseThrow().version();
    }

    @Test
    void aPausedOldHolderResumesAfterTheTakeoverAndWritesNothingAnyoneSees() throws Exception {
        GraphRoot.S3 root = S3LeaseProcessesTest.seeded(services, server, "paused");
        CrashHarness.GraphState before;
        long pin;
        try (Omnigraph reader = Omnigraph.open(services, root, OpenMode.READ_ONLY).block()) {
            before = CrashHarness.state(reader, services);
            pin = personPin(reader);
        }
        Process holder = ChildJvm.start(PausedHolderMain.class, dir.resolve("tmp"), List.of(root.uri(), "mutation.after_arm"),
                S3LeaseProcessesTest.environment(server));
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            StringBuilder seen = new StringBuilder();
            awaitLine(out, "PARKED", seen);

            // The holder is paused with its intent armed; its lease runs out (this process's clock is moved past it).
            TestClock later = TestClock.startingNow();
            later.advance(S3LeaseProcessesTest.LEASE.plusMinutes(1));
            Omnigraph taker = Omnigraph.open(services, root, OpenMode.READ_WRITE, S3LeaseProcessesTest.lease(later)).block();
            assertThat(HandleInternals.of(taker).pendingSidecars().collectList().block()).as("the armed intent, recovered").isEmpty();
            assertThat(CrashHarness.state(taker, services)).isEqualTo(before);

            // The old holder resumes and runs its write to the end.
            Writer in = new OutputStreamWriter(holder.getOutputStream(), StandardCharsets.UTF_8);
            in.write("go\n");
            in.flush();
            String end = awaitLine(out, "DONE", seen);
            assertThat(holder.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(seen.toString()).as("its write failed").contains("FAILED").doesNotContain("WROTE");

            // Its table commit landed, unfenced, but nobody sees it: not the taker, not a reader.
            assertThat(personHead(taker)).as("the stray commit, and no restore by the old holder").isEqualTo(pin + 1);
            assertThat(personPin(taker)).isEqualTo(pin);
            assertThat(CrashHarness.state(taker, services)).isEqualTo(before);
            try (Omnigraph reader = Omnigraph.open(services, root, OpenMode.READ_ONLY).block()) {
                assertThat(CrashHarness.state(reader, services)).isEqualTo(before);
                List<Sidecar> left = HandleInternals.of(reader).pendingSidecars().collectList().block();
                assertThat(left).as("the intent it confirmed after the takeover").singleElement()
                        .satisfies(s -> assertThat(s.protocolV3().effectPhase()).isEqualTo(Sidecar.EffectPhase.EffectsConfirmed));
            }
            taker.closeAsync().block();

            // The next read-write open reclaims it: rolled back (never forward: its epoch is not the manifest's).
            Omnigraph reopened = Omnigraph.open(services, root, OpenMode.READ_WRITE, S3LeaseProcessesTest.lease(later)).block();
            try {
                assertThat(HandleInternals.of(reopened).pendingSidecars().collectList().block()).isEmpty();
                assertThat(CrashHarness.state(reopened, services)).as("never adopted").isEqualTo(before);
                assertThat(personHead(reopened)).as("the stray version restored away and published")
                        .isEqualTo(personPin(reopened));
                assertThat(reopened.recoveries().collectList().block()).isNotEmpty()
                        .allSatisfy(r -> assertThat(r.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack));
                CrashScenario.INSERT.run(reopened).block();
                assertThat(CrashHarness.state(reopened, services)).isNotEqualTo(before);
            } finally {
                reopened.closeAsync().block();
            }
        } finally {
            holder.destroyForcibly();
        }
    }

    private static String awaitLine(BufferedReader out, String prefix, StringBuilder seen) throws Exception {
        String line;
        while ((line = out.readLine()) != null) {
            seen.append(line).append('\n');
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new AssertionError("the holder ended before printing " + prefix + ":\n" + seen);
    }
}
