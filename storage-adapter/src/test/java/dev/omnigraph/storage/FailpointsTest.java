package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.error.StorageFault;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

class FailpointsTest {

    @Test
    void aParkedPointHoldsEveryArrivalUntilReleasedWithoutHoldingThreads() throws InterruptedException {
        Failpoints points = Failpoints.none();
        Failpoints.Parked parked = points.park("w.after_arm");
        assertThat(parked.isReached()).isFalse();
        int arrivals = Schedulers.DEFAULT_POOL_SIZE * 4;
        CountDownLatch through = new CountDownLatch(arrivals);
        // More parked arrivals than there are parallel threads: they wait on a Mono, not on a thread.
        Disposable writes = Flux.range(0, arrivals)
                .flatMap(i -> Mono.just(i).publishOn(Schedulers.parallel())
                        .flatMap(x -> points.hit("w.after_arm").then(Mono.fromRunnable(through::countDown))), arrivals)
                .subscribe();
        parked.reached().block();
        assertThat(parked.isReached()).isTrue();
        // The parallel workers are free while the arrivals are parked.
        StepVerifier.create(Mono.fromCallable(() -> "free").subscribeOn(Schedulers.parallel()))
                .expectNext("free").verifyComplete();
        assertThat(through.getCount()).isEqualTo(arrivals);
        parked.release();
        assertThat(through.await(30, TimeUnit.SECONDS)).isTrue();
        // Released means open: a later arrival passes at once.
        StepVerifier.create(points.hit("w.after_arm")).expectComplete().verify(Duration.ofSeconds(10));
        writes.dispose();
    }

    @Test
    void aHitNumberActsOnThatHitOnly() {
        Failpoints points = Failpoints.none();
        points.armAll("recovery.sidecar_write=error@2");
        StepVerifier.create(points.hit("recovery.sidecar_write")).verifyComplete();
        StepVerifier.create(points.hit("recovery.sidecar_write")).expectError(StorageFault.class).verify();
        StepVerifier.create(points.hit("recovery.sidecar_write")).verifyComplete();
        // Re-arming restarts the count.
        points.arm("recovery.sidecar_write", new Failpoints.Action.OnHit(1, new Failpoints.Action.Error()));
        StepVerifier.create(points.hit("recovery.sidecar_write")).expectError(StorageFault.class).verify();
    }

    @Test
    void textualSpecsRefuseWhatTheyCannotMean() {
        Failpoints points = Failpoints.none();
        for (String bad : new String[] {"a=park", "a=error@0", "a=error@x", "a=bogus", "a", "a=exit@1@2"}) {
            assertThatThrownBy(() -> points.armAll(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        points.armAll("a=delay(5), b=exit@3");
        StepVerifier.create(points.hit("a")).verifyComplete();
        StepVerifier.create(points.hit("b")).verifyComplete();
    }
}
