package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.internal.HandleInternals;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.lease.LeaseSettings;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.storage.testing.S3TestServer;
import dev.omnigraph.storage.testing.StorageFixture;
import dev.omnigraph.storage.testing.TestClock;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * The writer lease on an {@code s3://} root, between real processes on the loopback S3 server: a holder halted
 * mid-write (its sidecar armed, its first table commit landed) whose lease outlives it until expiry, after which
 * this process takes it over and its open sweep recovers the dead holder's sidecar. Expiry is reached by moving
 * this process's clock, never by waiting. (Two processes racing for it: {@code S3WriterLeaseProcessesTest}.)
 */
public class S3LeaseProcessesTest {
    /** Leases long enough never to expire by themselves in a test. */
    public static final Duration LEASE = Duration.ofHours(1);
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

    /** What a child JVM needs to reach the server, with hour-long leases. */
    public static List<String> environment(S3TestServer server) {
        List<String> env = new ArrayList<>(server.environment().entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).toList());
        env.add(LeaseSettings.ENV_DURATION + "=" + LEASE);
        return env;
    }

    public static LeaseSettings lease(Clock judge) {
        return LeaseSettings.of(LEASE).withClock(judge);
    }

    public static GraphRoot.S3 seeded(StorageServices services, S3TestServer server, String prefix) {
        GraphRoot.S3 root = server.root("lease", prefix);
        Omnigraph graph = Omnigraph.init(services, root, CrashScenario.SCHEMA, lease(Clock.systemUTC())).block();
        try {
            graph.load("main", LoadMode.APPEND, Flux.just(ByteBuffer.wrap(CrashScenario.SEED.getBytes(StandardCharsets.UTF_8))),
                    LoadOptions.DEFAULT).block();
        } finally {
            graph.closeAsync().block(); // released: the next taker gets it at once
        }
        return root;
    }

    @Test
    void aHaltedHoldersLeaseIsTakenOverAfterExpiryAndItsSidecarRecovered() throws Exception {
        GraphRoot.S3 root = seeded(services, server, "halted");
        CrashHarness.GraphState before;
        try (Omnigraph reader = Omnigraph.open(services, root, OpenMode.READ_ONLY).block()) {
            before = CrashHarness.state(reader, services);
        }
        CrashHarness.ChildRun run = CrashHarness.runChild(root.uri(), CrashScenario.INSERT.name(),
                FailpointCatalog.point(CrashScenario.INSERT.writer, FailpointCatalog.AFTER_COMMIT + "1") + "=exit",
                dir.resolve("tmp"), environment(server));
        assertThat(run.exitCode()).as(run.output()).isEqualTo(Failpoints.EXIT_CODE);

        // Dead, but its lease has not expired: a writer is refused naming it; a reader sees the old graph.
        assertThatThrownBy(() -> Omnigraph.open(services, root, OpenMode.READ_WRITE, lease(Clock.systemUTC())).block())
                .isInstanceOf(Conflict.class).hasMessageContaining("writer epoch 2");
        try (Omnigraph reader = Omnigraph.open(services, root, OpenMode.READ_ONLY).block()) {
            assertThat(HandleInternals.of(reader).pendingSidecars().collectList().block()).hasSize(1);
            assertThat(CrashHarness.state(reader, services)).isEqualTo(before);
        }

        TestClock later = TestClock.startingNow();
        later.advance(LEASE.plusMinutes(1));
        Omnigraph taker = Omnigraph.open(services, root, OpenMode.READ_WRITE, lease(later)).block();
        try {
            assertThat(taker.snapshot(ReadTarget.main()).block().manifest().writerEpoch()).isEqualTo(3);
            assertThat(HandleInternals.of(taker).pendingSidecars().collectList().block()).isEmpty();
            assertThat(CrashHarness.state(taker, services)).isEqualTo(before);
            assertThat(taker.recoveries().collectList().block()).singleElement()
                    .satisfies(r -> assertThat(r.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack));
            CrashScenario.INSERT.run(taker).block();
        } finally {
            taker.closeAsync().block();
        }
    }
}
