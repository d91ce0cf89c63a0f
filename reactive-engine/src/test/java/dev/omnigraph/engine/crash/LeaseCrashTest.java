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
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.lease.LeaseSettings;
import dev.omnigraph.storage.testing.ChildJvm;
import dev.omnigraph.storage.testing.StorageFixture;
import dev.omnigraph.storage.testing.TestClock;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * A lease holder killed mid-write (Runtime.halt at a failpoint after its sidecar was armed and its first table
 * commit landed): its lease outlives it until it expires, then another process takes it over with the next epoch
 * and its open sweep rolls the dead holder's write back. Expiry is reached by moving this process's clock.
 */
class LeaseCrashTest {
    private static final Duration LEASE = Duration.ofHours(1);

    @TempDir
    Path dir;
    StorageServices services;
    Path root;

    @BeforeEach
    void setUp() {
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
        root = dir.resolve("graph");
    }

    @AfterEach
    void tearDown() {
        services.tables().close();
    }

    private static LeaseSettings lease(java.time.Clock judge) {
        return LeaseSettings.of(LEASE).withObjectLease().withClock(judge);
    }

    @Test
    void aKilledHoldersLeaseIsTakenOverAfterExpiryAndItsSidecarRecovered() throws Exception {
        CrashHarness.GraphState before;
        try (Omnigraph seeded = Omnigraph.init(services, root, CrashScenario.SCHEMA).block()) {
            seeded.load("main", LoadMode.APPEND, Flux.just(ByteBuffer.wrap(CrashScenario.SEED.getBytes(StandardCharsets.UTF_8))),
                    LoadOptions.DEFAULT).block();
            before = CrashHarness.state(seeded, services);
        }

        ChildJvm.Finished child = ChildJvm.run(CrashMain.class, dir.resolve("tmp"), List.of(root.toString(), "INSERT"),
                List.of("OMNIGRAPH_FAILPOINTS=mutation.after_commit:1=exit", LeaseSettings.ENV_MODE + "=object",
                        LeaseSettings.ENV_DURATION + "=PT1H"), java.time.Duration.ofSeconds(120));
        String output = child.output();
        assertThat(child.exitValue()).as(output).isEqualTo(Failpoints.EXIT_CODE);

        // Dead, but its lease has not expired: a writer is refused (naming it); a reader sees the old graph.
        assertThatThrownBy(() -> Omnigraph.open(services, root, OpenMode.READ_WRITE, lease(java.time.Clock.systemUTC()))
                .block()).isInstanceOf(Conflict.class).hasMessageContaining("process " + child.pid());
        try (Omnigraph reader = Omnigraph.open(services, root, OpenMode.READ_ONLY).block()) {
            assertThat(HandleInternals.of(reader).pendingSidecars().collectList().block()).hasSize(1);
            assertThat(CrashHarness.state(reader, services)).isEqualTo(before);
        }

        TestClock later = TestClock.startingNow();
        later.advance(LEASE.plusMinutes(1));
        Omnigraph taker = Omnigraph.open(services, root, OpenMode.READ_WRITE, lease(later)).block();
        try {
            assertThat(taker.snapshot(ReadTarget.main()).block().manifest().writerEpoch()).isEqualTo(2);
            assertThat(HandleInternals.of(taker).pendingSidecars().collectList().block()).isEmpty();
            assertThat(CrashHarness.state(taker, services)).isEqualTo(before);
            assertThat(taker.recoveries().collectList().block()).singleElement()
                    .satisfies(r -> assertThat(r.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack));
            CrashScenario.INSERT.run(taker).block();
        } finally {
            taker.closeAsync().block(); // the lease is given back before @TempDir is deleted
        }
    }
}
