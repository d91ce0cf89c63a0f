package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.error.StorageOverloaded;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockingOperationError;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

class StorageSchedulerTest {

    @Test
    void runsWorkOnNamedStorageThreads() {
        try (StorageScheduler storage = StorageScheduler.create(2, 10)) {
            StepVerifier.create(storage.call(() -> Thread.currentThread().getName()))
                    .assertNext(name -> assertThat(name).startsWith("omnigraph-storage-"))
                    .verifyComplete();
            StepVerifier.create(storage.call(StorageScheduler::onStorageThread)).expectNext(true).verifyComplete();
        }
        assertThat(StorageScheduler.onStorageThread()).isFalse();
        assertThatThrownBy(() -> StorageScheduler.requireStorageThread("open"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("omnigraph-storage");
    }

    @Test
    void blockingIsAllowedThereAndRefusedOnParallelThreads() {
        try (StorageScheduler storage = StorageScheduler.create(1, 10)) {
            StepVerifier.create(storage.call(() -> {
                Thread.yield(); // a call BlockHound counts as blocking, without waiting for anything
                return 1;
            })).expectNext(1).verifyComplete();
        }
        // Proves BlockHound is installed for the test run: the same call on a non-blocking thread fails.
        StepVerifier.create(Mono.fromCallable(() -> {
            Thread.yield();
            return 1;
        }).subscribeOn(Schedulers.parallel()))
                .expectErrorSatisfies(error -> assertThat(error).isInstanceOf(BlockingOperationError.class)
                        // The message says where: the thread and the first caller outside the JDK.
                        .hasMessageContaining("yield on parallel-")
                        .hasMessageContaining("StorageSchedulerTest.lambda$"))
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void aTaskCancelledBeforeItStartsNeverRuns() throws Exception {
        try (StorageScheduler storage = StorageScheduler.create(1, 10)) {
            CountDownLatch release = new CountDownLatch(1);
            Disposable occupier = storage.call(() -> release.await(5, TimeUnit.SECONDS)).subscribe();
            AtomicBoolean ran = new AtomicBoolean();
            Disposable queued = storage.call(() -> {
                ran.set(true);
                return 1;
            }).subscribe();
            queued.dispose();
            release.countDown();
            StepVerifier.create(storage.call(() -> 2)).expectNext(2).verifyComplete();
            assertThat(ran).isFalse();
            occupier.dispose();
        }
    }

    @Test
    void aStartedTaskRunsToCompletionEvenWhenCancelled() throws Exception {
        try (StorageScheduler storage = StorageScheduler.create(1, 10)) {
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch finished = new CountDownLatch(1);
            AtomicInteger interrupted = new AtomicInteger();
            Disposable inFlight = storage.call(() -> {
                started.countDown();
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
                while (System.nanoTime() < end) {
                    if (Thread.currentThread().isInterrupted()) interrupted.incrementAndGet();
                }
                finished.countDown();
                return 1;
            }).subscribe();
            assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
            inFlight.dispose();
            assertThat(finished.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(interrupted.get()).isZero();
        }
    }

    @Test
    void aFullQueueIsATypedRefusal() throws Exception {
        try (StorageScheduler storage = StorageScheduler.create(1, 1)) {
            CountDownLatch running = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            storage.call(() -> {
                running.countDown();
                return release.await(5, TimeUnit.SECONDS);
            }).subscribe();
            // The only worker is busy, so the next task takes the one queue slot and the third is refused.
            assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
            storage.call(() -> 1).subscribe();
            StepVerifier.create(storage.call(() -> 2)).expectError(StorageOverloaded.class).verify(Duration.ofSeconds(5));
            release.countDown();
        }
    }
}
