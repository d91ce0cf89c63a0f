package dev.omnigraph.storage.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.LocalObjectStore;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.RootLock;
import dev.omnigraph.storage.StorageScheduler;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.LeaseLost;
import dev.omnigraph.storage.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * The lease object: one holder at a time, refusals naming it, takeover only after expiry (judged by a clock the
 * test moves) with the next epoch, a holder that learns it lost, and release handing it on at once.
 */
class WriterLeaseTest {
    private static final Duration LEASE = Duration.ofMinutes(10);

    @TempDir
    Path root;
    StorageScheduler scheduler;
    ObjectStore files;
    TestClock clock;

    @BeforeEach
    void setUp() {
        scheduler = StorageScheduler.create();
        files = store();
        clock = TestClock.startingNow();
    }

    /** The store the lease object lives in (a subclass runs every case on S3). */
    ObjectStore store() {
        return new LocalObjectStore(root, scheduler);
    }

    @AfterEach
    void tearDown() {
        scheduler.close();
    }

    /** A process as the lease names it; renewal is left to the test (it renews by hand). */
    private LeaseSettings owner(long pid) {
        return LeaseSettings.of(LEASE).renewingEvery(LEASE.minusSeconds(1)).withObjectLease()
                .ownedBy(new RootLock.Holder(pid, "host-" + pid, Instant.parse("2026-01-01T00:00:00Z"))).withClock(clock);
    }

    @Test
    void aHeldLeaseRefusesAnotherOwnerNamingTheHolderAndEpoch() {
        WriterTenure first = WriterLease.share(files, owner(11)).block();
        assertThat(first.epoch()).isEqualTo(1);
        assertThatThrownBy(() -> WriterLease.share(files, owner(22)).block())
                .isInstanceOf(Conflict.class)
                .hasMessageContaining("process 11 on host host-11")
                .hasMessageContaining("writer epoch 1")
                .hasMessageContaining("read-only");
        first.requireHeld();
        first.release().block();
    }

    @Test
    void handlesOfOneOwnerShareTheLeaseAndTheLastCloseReleasesIt() {
        WriterTenure a = WriterLease.share(files, owner(11)).block();
        WriterTenure b = WriterLease.share(files, owner(11)).block();
        assertThat(b.epoch()).isEqualTo(a.epoch());
        a.release().block();
        assertThatThrownBy(() -> WriterLease.share(files, owner(22)).block()).isInstanceOf(Conflict.class);
        b.release().block();
        b.release().block(); // a second release is harmless
        WriterTenure next = WriterLease.share(files, owner(22)).block();
        assertThat(next.epoch()).as("a released lease is taken at once, with the next epoch").isEqualTo(2);
        next.release().block();
    }

    @Test
    void anExpiredLeaseIsTakenOverWithTheNextEpochAndTheOldHolderLearnsItLostIt() {
        WriterLease.Share paused = (WriterLease.Share) WriterLease.share(files, owner(11)).block();
        clock.advance(LEASE.plusSeconds(1));
        assertThatThrownBy(paused::requireHeld).as("expired unrenewed").isInstanceOf(LeaseLost.class)
                .hasMessageContaining("expired unrenewed");

        WriterTenure taker = WriterLease.share(files, owner(22)).block();
        assertThat(taker.epoch()).isEqualTo(2);
        paused.lease().renewOnce().block();
        assertThatThrownBy(paused::requireHeld).isInstanceOf(LeaseLost.class)
                .hasMessageContaining("taken over by process 22 on host host-22")
                .satisfies(e -> assertThat(((LeaseLost) e).epoch()).isEqualTo(1));
        // Giving back a lost lease leaves the new holder's alone.
        paused.release().block();
        assertThatThrownBy(() -> WriterLease.share(files, owner(33)).block()).hasMessageContaining("process 22");
        taker.release().block();
    }

    @Test
    void aLeaseNamingThisProcessThatNoHandleSharesIsTakenOverAtOnce() {
        // A lease this owner took whose give-back has not landed (a close that did not wait for it).
        WriterLease stale = WriterLease.take(files, owner(11)).block();
        WriterTenure reopened = WriterLease.share(files, owner(11)).block();
        assertThat(reopened.epoch()).as("taken over, not refused as held").isEqualTo(2);
        stale.renewOnce().block();
        assertThatThrownBy(stale::requireHeld).isInstanceOf(LeaseLost.class).hasMessageContaining("taken over");
        stale.giveBack().block(); // a late give-back of the stale lease leaves the new one alone
        assertThatThrownBy(() -> WriterLease.share(files, owner(22)).block()).isInstanceOf(Conflict.class);
        reopened.release().block();
    }

    @Test
    void renewalKeepsTheLeasePastItsFirstExpiry() {
        WriterLease.Share holder = (WriterLease.Share) WriterLease.share(files, owner(11)).block();
        clock.advance(LEASE.minusSeconds(5));
        holder.lease().renewOnce().block();
        clock.advance(Duration.ofSeconds(10));
        holder.requireHeld();
        assertThatThrownBy(() -> WriterLease.share(files, owner(22)).block()).isInstanceOf(Conflict.class);
        holder.release().block();
    }

    /** The store, telling {@code renewed} each time a conditional replace lands (the test waits on it, not on time). */
    private ObjectStore signalling(java.util.concurrent.atomic.AtomicReference<java.util.concurrent.CountDownLatch> renewed) {
        ObjectStore store = files;
        return new ObjectStore() {
            @Override public reactor.core.publisher.Mono<Void> put(String key, byte[] bytes) { return store.put(key, bytes); }
            @Override public reactor.core.publisher.Mono<Boolean> putIfAbsent(String key, byte[] bytes) { return store.putIfAbsent(key, bytes); }
            @Override public reactor.core.publisher.Mono<java.util.Optional<byte[]>> get(String key) { return store.get(key); }
            @Override public reactor.core.publisher.Mono<List<String>> list(String prefix) { return store.list(prefix); }
            @Override public reactor.core.publisher.Mono<Boolean> delete(String key) { return store.delete(key); }
            @Override public reactor.core.publisher.Mono<Boolean> exists(String key) { return store.exists(key); }
            @Override public String rootUri() { return store.rootUri(); }
            @Override public reactor.core.publisher.Mono<java.util.Optional<Versioned>> getVersioned(String key) { return store.getVersioned(key); }

            @Override
            public reactor.core.publisher.Mono<Boolean> replaceIf(String key, String expectedVersion, byte[] bytes) {
                return store.replaceIf(key, expectedVersion, bytes).doOnNext(landed -> {
                    if (landed) {
                        renewed.get().countDown();
                    }
                });
            }
        };
    }

    @Test
    void theRenewalTimerExtendsTheLeaseWhileTheHandleIsOpen() throws Exception {
        var renewed = new java.util.concurrent.atomic.AtomicReference<>(new java.util.concurrent.CountDownLatch(1));
        WriterTenure holder = WriterLease.share(signalling(renewed),
                owner(11).renewingEvery(Duration.ofMillis(50))).block();
        clock.advance(LEASE.minusMinutes(1));
        // Renewals are serial, so the second to land after the clock moved read the moved clock.
        renewed.set(new java.util.concurrent.CountDownLatch(2));
        assertThat(renewed.get().await(60, TimeUnit.SECONDS)).as("two renewals landed").isTrue();
        clock.advance(Duration.ofMinutes(5)); // past the first expiry, within the renewed one
        holder.requireHeld();
        assertThatThrownBy(() -> WriterLease.share(files, owner(22)).block()).isInstanceOf(Conflict.class);
        holder.release().block();
    }

    @Test
    void aWaitingOpenGetsTheLeaseWhenTheHolderReleasesIt() throws Exception {
        WriterTenure holder = WriterLease.share(files, owner(11)).block();
        CompletableFuture<WriterTenure> waiter = WriterLease.share(files,
                owner(22).waiting(Duration.ofMinutes(5)).polling(Duration.ofMillis(20))).toFuture();
        assertThat(waiter).isNotDone();
        holder.release().block();
        WriterTenure next = waiter.get(60, TimeUnit.SECONDS);
        assertThat(next.epoch()).isEqualTo(2);
        next.release().block();
    }

    @Test
    void ownersRacingForAFreeLeaseLeaveExactlyOneHolder() {
        List<Object> outcomes = Flux.range(1, 8)
                .flatMap(pid -> WriterLease.share(files, owner(pid)).<Object>map(held -> held)
                        .onErrorResume(Conflict.class, refused -> reactor.core.publisher.Mono.just(refused)), 8)
                .collectList().block();
        assertThat(outcomes).filteredOn(WriterTenure.class::isInstance).hasSize(1);
        assertThat(outcomes).filteredOn(Conflict.class::isInstance).hasSize(7);
        ((WriterTenure) outcomes.stream().filter(WriterTenure.class::isInstance).findFirst().orElseThrow()).release().block();
    }

    @Test
    void settingsRefuseNonsense() {
        assertThatThrownBy(() -> LeaseSettings.of(Duration.ofSeconds(10)).renewingEvery(Duration.ofSeconds(10)))
                .isInstanceOf(dev.omnigraph.storage.error.BadRequest.class).hasMessageContaining("renewed more often");
        assertThatThrownBy(() -> LeaseSettings.fromEnvironment(java.util.Map.of(LeaseSettings.ENV_DURATION, "soon")))
                .isInstanceOf(dev.omnigraph.storage.error.BadRequest.class).hasMessageContaining(LeaseSettings.ENV_DURATION);
        assertThatThrownBy(() -> LeaseSettings.fromEnvironment(java.util.Map.of(LeaseSettings.ENV_MODE, "nfs")))
                .isInstanceOf(dev.omnigraph.storage.error.BadRequest.class).hasMessageContaining("'auto' or 'object'");
        LeaseSettings parsed = LeaseSettings.fromEnvironment(java.util.Map.of(LeaseSettings.ENV_DURATION, "PT6S",
                LeaseSettings.ENV_WAIT, "PT1M", LeaseSettings.ENV_MODE, "object"));
        assertThat(parsed.renewEvery()).isEqualTo(Duration.ofSeconds(2));
        assertThat(parsed.waitFor()).isEqualTo(Duration.ofMinutes(1));
        assertThat(parsed.objectLease()).isTrue();
    }
}
