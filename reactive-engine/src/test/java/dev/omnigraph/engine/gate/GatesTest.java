package dev.omnigraph.engine.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

class GatesTest {

    @Test
    void exclusiveHoldersRunOneAtATimeInArrivalOrder() {
        AsyncRwGate gate = new AsyncRwGate("t");
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        Flux.range(0, 20)
                .flatMap(i -> Mono.usingWhen(gate.exclusive(), permit -> Mono.fromRunnable(() -> {
                            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            order.add(i);
                        }).then(Mono.delay(Duration.ofMillis(1))).doOnNext(x -> inside.decrementAndGet()),
                        Permit::releaseAsync), 20)
                .blockLast(Duration.ofSeconds(10));
        assertThat(maxInside.get()).isEqualTo(1);
        assertThat(order).containsExactlyElementsOf(java.util.stream.IntStream.range(0, 20).boxed().toList());
        assertThat(gate.isIdle()).isTrue();
    }

    @Test
    void sharedHoldersOverlapButAQueuedExclusiveStopsLaterSharedOnes() {
        AsyncRwGate gate = new AsyncRwGate("t");
        Permit first = gate.shared().block();
        Permit second = gate.shared().block(Duration.ofSeconds(1));
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        Disposable writer = gate.exclusive().subscribe(permit -> {
            events.add("exclusive");
            permit.release();
        });
        Disposable lateReader = gate.shared().subscribe(permit -> {
            events.add("late shared");
            permit.release();
        });
        assertThat(events).isEmpty();
        first.release();
        second.release();
        assertThat(events).containsExactly("exclusive", "late shared");
        assertThat(gate.isIdle()).isTrue();
        writer.dispose();
        lateReader.dispose();
    }

    @Test
    void aCancelledWaiterLeavesTheQueueAndReleaseIsIdempotent() {
        AsyncRwGate gate = new AsyncRwGate("t");
        Permit held = gate.exclusive().block();
        Disposable waiter = gate.exclusive().subscribe();
        waiter.dispose();
        held.release();
        held.release();
        assertThat(gate.isIdle()).isTrue();
        StepVerifier.create(gate.exclusive().doOnNext(Permit::release)).expectNextCount(1).verifyComplete();
    }

    @Test
    void writeGatesAreOrderedAndReleasedTogether() {
        Gates gates = Gates.forRoot("/tmp/gates-test-" + System.nanoTime());
        TreeSet<String> tables = new TreeSet<>(List.of("node:B", "node:A"));
        Permit permit = gates.forWrite("main", tables).block(Duration.ofSeconds(1));
        StepVerifier.create(gates.forWrite("main", new TreeSet<>(List.of("node:A"))).timeout(Duration.ofMillis(100)))
                .expectError(java.util.concurrent.TimeoutException.class).verify();
        assertThat(gates.allIdle()).isFalse();
        permit.release();
        assertThat(gates.allIdle()).isTrue();
        assertThat(Gates.forRoot("/same")).isSameAs(Gates.forRoot("/same"));
    }

    @Test
    void manyConcurrentCancellationsNeverLeakAGate() {
        Gates gates = Gates.forRoot("/tmp/gates-cancel-" + System.nanoTime());
        for (int round = 0; round < 200; round++) {
            holderAndRacer(gates, Duration.ofMillis(1), 0, round % 2 == 0);
        }
        assertEverythingReleased(gates);
    }

    /**
     * Grants raced against cancels from another thread: a holder released at a random moment by the parallel
     * scheduler admits the next waiter while this thread disposes it. A grant a cancelled sink dropped used to keep
     * the branch gate held for good (8 of 30 repetitions before the fix).
     */
    @RepeatedTest(10)
    void grantsThatRaceACancelOnAnotherThreadNeverLeakAGate() {
        Gates gates = Gates.forRoot("/tmp/gates-race-" + System.nanoTime());
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int round = 0; round < 3_000; round++) {
            holderAndRacer(gates, Duration.ofNanos(random.nextLong(0, 100_000)),
                    random.nextBoolean() ? random.nextLong(0, 50_000) : 0, round % 2 == 0);
        }
        assertEverythingReleased(gates);
    }

    private static final TreeSet<String> TABLES = new TreeSet<>(List.of("node:A", "node:B", "node:C"));

    /** A holder that keeps its permit for {@code hold} on the parallel scheduler, a racer behind it, both disposed. */
    private static void holderAndRacer(Gates gates, Duration hold, long spinNanos, boolean disposeRacer) {
        Disposable holder = gates.forWrite("main", TABLES)
                .flatMap(permit -> Mono.delay(hold, Schedulers.parallel()).doFinally(s -> permit.release()))
                .subscribe();
        Disposable racer = gates.forWrite("main", TABLES).subscribe(Permit::release);
        spin(spinNanos);
        if (disposeRacer) {
            racer.dispose();
        }
        holder.dispose();
    }

    /** Gates are FIFO: this permit is granted only after every earlier holder and racer has released. */
    private static void assertEverythingReleased(Gates gates) {
        StepVerifier.create(gates.forWrite("main", TABLES).doOnNext(Permit::release))
                .expectNextCount(1).expectComplete()
                .verify(Duration.ofSeconds(30));
        assertThat(gates.allIdle()).as("%s", gates).isTrue();
    }

    /** Busy-waits a few microseconds, so that the cancel lands at varied points of a grant on another thread. */
    private static void spin(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }
}
