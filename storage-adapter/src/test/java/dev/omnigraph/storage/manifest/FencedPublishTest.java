package dev.omnigraph.storage.manifest;

import static dev.omnigraph.storage.manifest.ManifestFixture.KNOWS;
import static dev.omnigraph.storage.manifest.ManifestFixture.PERSON;
import static dev.omnigraph.storage.manifest.ManifestFixture.move;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.LanceTableStorage;
import dev.omnigraph.storage.LocalObjectStore;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.RootLock;
import dev.omnigraph.storage.StorageScheduler;
import dev.omnigraph.storage.error.LeaseLost;
import dev.omnigraph.storage.lease.LeaseSettings;
import dev.omnigraph.storage.lease.WriterTenure;
import dev.omnigraph.storage.testing.StorageFixture;
import dev.omnigraph.storage.testing.TestClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fencing: a holder whose lease expired and was taken over (it was paused) can never publish again, on any graph
 * branch, because the new holder stamped its higher epoch on every branch's manifest and each publish's CAS checks
 * it. Two "processes" here are two manifest stores and two lease owners on one root, with a clock the test moves.
 */
class FencedPublishTest {
    private static final Duration LEASE = Duration.ofMinutes(10);

    @TempDir
    Path root;
    LanceTableStorage tables;
    StorageScheduler scheduler;
    ObjectStore files;
    TestClock clock;
    GraphCommit genesis;

    @BeforeEach
    void setUp() {
        tables = StorageFixture.newTableStorage();
        scheduler = StorageScheduler.create();
        files = new LocalObjectStore(root, scheduler);
        clock = TestClock.startingNow();
        genesis = ManifestFixture.init(new ManifestStore(root.toString(), tables));
    }

    @AfterEach
    void tearDown() {
        scheduler.close();
        tables.close();
    }

    /** A lease owner judging time by {@code judge}: the paused holder's own clock does not move. */
    private WriterTenure lease(long pid, java.time.Clock judge) {
        LeaseSettings settings = LeaseSettings.of(LEASE).renewingEvery(LEASE.minusSeconds(1)).withObjectLease()
                .ownedBy(new RootLock.Holder(pid, "host", Instant.parse("2026-01-01T00:00:00Z"))).withClock(judge);
        return WriterTenure.acquire(files, Optional.of(root), settings, scheduler).block();
    }

    @Test
    void aTakenOverHolderCannotPublishOnAnyBranchWhileTheNewHolderCan() {
        ManifestStore storeA = new ManifestStore(root.toString(), tables);
        WriterTenure a = lease(1, java.time.Clock.fixed(clock.instant(), java.time.ZoneOffset.UTC));
        ManifestFence.establish(storeA, a).block();
        ManifestBatchPublisher publisherA = new ManifestBatchPublisher(storeA, a);
        GraphCommit first = publisherA.publish(move("main", ExpectedHead.exactly(genesis.id()), PERSON, 2, 3)).block();
        assertThat(storeA.load("main").block().writerEpoch()).isEqualTo(1);
        tables.createBranch(storeA.ref("main"), tables.head(storeA.ref("main")).block(), "feature").block();

        // A pauses past its expiry; B takes the lease over and fences every branch before doing anything.
        clock.advance(LEASE.plusSeconds(1));
        ManifestStore storeB = new ManifestStore(root.toString(), tables);
        WriterTenure b = lease(2, clock);
        assertThat(b.epoch()).isEqualTo(2);
        ManifestFence.establish(storeB, b).block();
        assertThat(storeB.load("main").block().writerEpoch()).isEqualTo(2);
        assertThat(storeB.load("feature").block().writerEpoch()).isEqualTo(2);
        long mainBefore = tables.head(storeB.ref("main")).block();
        long featureBefore = tables.head(storeB.ref("feature")).block();

        // A resumes, unaware (its own clock never moved): its kept state plans the publish, the CAS loses to the
        // fence, and the fresh manifest's epoch refuses it; nothing lands on either branch.
        assertThatThrownBy(() -> publisherA.publish(move("main", ExpectedHead.any(), KNOWS, 2, 5)).block())
                .isInstanceOf(LeaseLost.class).hasMessageContaining("writer epoch 2");
        assertThatThrownBy(() -> publisherA.publish(move("feature", ExpectedHead.any(), KNOWS, 2, 6)).block())
                .isInstanceOf(LeaseLost.class);
        assertThatThrownBy(() -> new ManifestBatchPublisher(storeA).publish(move("main", ExpectedHead.any(), KNOWS, 2, 5))
                .block()).as("a publisher outside any tenure").isInstanceOf(LeaseLost.class);
        assertThat(tables.head(storeB.ref("main")).block()).isEqualTo(mainBefore);
        assertThat(tables.head(storeB.ref("feature")).block()).isEqualTo(featureBefore);
        assertThat(storeB.commits("main").map(GraphCommit::id).collectList().block()).containsExactly(first.id(), genesis.id());

        GraphCommit byB = new ManifestBatchPublisher(storeB, b)
                .publish(move("main", ExpectedHead.exactly(first.id()), KNOWS, 2, 5)).block();
        assertThat(storeB.load("main").block().head()).contains(byB.id());
        b.release().block();
        a.release().block();
    }

    @Test
    void aLocalTenureAdoptsTheManifestEpochAndWritesNoFence() {
        ManifestStore store = new ManifestStore(root.toString(), tables);
        WriterTenure local = WriterTenure.acquire(files, Optional.of(root), LeaseSettings.defaults(), scheduler).block();
        try {
            long before = tables.head(store.ref("main")).block();
            ManifestFence.establish(store, local).block();
            assertThat(tables.head(store.ref("main")).block()).isEqualTo(before);
            assertThat(local.epoch()).isZero();
            new ManifestBatchPublisher(store, local).publish(move("main", ExpectedHead.exactly(genesis.id()), PERSON, 2, 3)).block();
            assertThat(store.load("main").block().writerEpoch()).isZero();
        } finally {
            local.close();
        }
    }
}
