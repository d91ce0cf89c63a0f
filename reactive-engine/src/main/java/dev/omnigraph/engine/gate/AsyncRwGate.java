package dev.omnigraph.engine.gate;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * A fair (FIFO), non-blocking read/write gate. Acquisition is a {@code Mono<Permit>}: nothing parks a thread,
 * a waiter is a queued sink. Shared holders run together; an exclusive holder runs alone; a queued exclusive
 * request blocks later shared ones (no writer starvation). A waiter that cancels leaves the queue; a permit
 * granted to a waiter that cancelled at the same moment is released at once. An exclusive-only gate is the same
 * object used only with {@link #exclusive()}.
 */
public final class AsyncRwGate {
    private final String name;
    private final ArrayDeque<Waiter> queue = new ArrayDeque<>();
    private int sharedHolders;
    private boolean exclusiveHeld;

    public AsyncRwGate(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    public Mono<Permit> shared() {
        return acquire(false);
    }

    public Mono<Permit> exclusive() {
        return acquire(true);
    }

    private Mono<Permit> acquire(boolean exclusive) {
        return Mono.defer(() -> {
            Waiter waiter = new Waiter(exclusive);
            return Mono.<Permit>create(sink -> {
                        boolean admitted;
                        synchronized (this) {
                            waiter.sink = sink;
                            admitted = queue.isEmpty() && canEnter(exclusive);
                            if (admitted) {
                                enter(exclusive);
                                waiter.admit();
                            } else {
                                queue.addLast(waiter);
                            }
                        }
                        sink.onCancel(() -> cancel(waiter));
                        if (admitted) {
                            waiter.deliver();
                        }
                    })
                    .doOnNext(permit -> waiter.received())
                    .doOnDiscard(Permit.class, Permit::release); // a grant stored for a subscriber that cancelled
        });
    }

    private boolean canEnter(boolean exclusive) {
        return exclusive ? !exclusiveHeld && sharedHolders == 0 : !exclusiveHeld;
    }

    private void enter(boolean exclusive) {
        if (exclusive) {
            exclusiveHeld = true;
        } else {
            sharedHolders++;
        }
    }

    private void leave(boolean exclusive) {
        java.util.List<Waiter> admitted = new java.util.ArrayList<>();
        synchronized (this) {
            if (exclusive) {
                exclusiveHeld = false;
            } else {
                sharedHolders--;
            }
            while (!queue.isEmpty() && canEnter(queue.peekFirst().exclusive)) {
                Waiter next = queue.pollFirst();
                enter(next.exclusive);
                next.admit();
                admitted.add(next);
                if (next.exclusive) {
                    break;
                }
            }
        }
        // Deliver outside the lock: a subscriber may run its whole critical section synchronously.
        admitted.forEach(Waiter::deliver);
    }

    private void cancel(Waiter waiter) {
        boolean removed;
        synchronized (this) {
            removed = queue.remove(waiter);
        }
        if (!removed) {
            waiter.cancelled();
        }
    }

    /** For tests and diagnostics: whether anybody holds or waits for this gate. */
    public synchronized boolean isIdle() {
        return queue.isEmpty() && sharedHolders == 0 && !exclusiveHeld;
    }

    @Override
    public synchronized String toString() {
        return name + "[shared=" + sharedHolders + ", exclusive=" + exclusiveHeld + ", waiting=" + queue.size() + "]";
    }

    /**
     * One acquisition. Once admitted it holds its slot until its subscriber has seen the permit; a cancel before
     * that hands the slot back. A {@code MonoSink} whose subscriber cancelled drops a value it is given (it does not
     * discard it), so the handover cannot rely on the sink: it is settled by whichever of {@link #received} and
     * {@link #cancelled} comes second.
     */
    private final class Waiter {
        private static final int QUEUED = 0;
        private static final int ADMITTED = 1;
        private static final int RECEIVED = 2;
        private static final int CANCELLED = 3;

        final boolean exclusive;
        final AtomicInteger state = new AtomicInteger(QUEUED);
        MonoSink<Permit> sink; // set under the gate's lock before the waiter is queued or admitted
        private Permit permit; // set before the state leaves QUEUED

        Waiter(boolean exclusive) {
            this.exclusive = exclusive;
        }

        /** Under the gate's lock, after {@code enter}: the slot is this waiter's. */
        void admit() {
            AtomicBoolean released = new AtomicBoolean();
            permit = () -> {
                if (released.compareAndSet(false, true)) {
                    leave(exclusive);
                }
            };
            state.set(ADMITTED);
        }

        /** Outside the lock. A sink cancelled meanwhile drops the permit; {@link #cancelled} releases it then. */
        void deliver() {
            sink.success(permit);
        }

        /** The subscriber has the permit: releasing it is now its job, unless it cancelled first. */
        void received() {
            if (!state.compareAndSet(ADMITTED, RECEIVED)) {
                permit.release();
            }
        }

        /** Cancelled after leaving the queue: the slot goes back unless the subscriber already has the permit. */
        void cancelled() {
            if (state.getAndSet(CANCELLED) == ADMITTED) {
                permit.release();
            }
        }
    }
}
