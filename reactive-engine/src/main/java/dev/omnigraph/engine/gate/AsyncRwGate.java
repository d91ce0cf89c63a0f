package dev.omnigraph.engine.gate;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicBoolean;
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
        return Mono.<Permit>create(sink -> {
            Waiter waiter = new Waiter(exclusive, sink);
            Permit granted;
            synchronized (this) {
                if (queue.isEmpty() && canEnter(exclusive)) {
                    enter(exclusive);
                    granted = waiter.permit();
                } else {
                    queue.addLast(waiter);
                    granted = null;
                }
            }
            sink.onCancel(() -> cancel(waiter));
            if (granted != null) {
                waiter.deliver(granted);
            }
        }).doOnDiscard(Permit.class, Permit::release); // a grant that raced a cancel is handed back
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
                admitted.add(next);
                if (next.exclusive) {
                    break;
                }
            }
        }
        // Deliver outside the lock: a subscriber may run its whole critical section synchronously.
        admitted.forEach(waiter -> waiter.deliver(waiter.permit()));
    }

    private void cancel(Waiter waiter) {
        boolean removed;
        synchronized (this) {
            removed = queue.remove(waiter);
        }
        if (!removed) {
            waiter.cancelled.set(true);
            waiter.releaseIfUndelivered();
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

    private final class Waiter {
        final boolean exclusive;
        final MonoSink<Permit> sink;
        final AtomicBoolean cancelled = new AtomicBoolean();
        final AtomicBoolean delivered = new AtomicBoolean();
        private Permit permit;

        Waiter(boolean exclusive, MonoSink<Permit> sink) {
            this.exclusive = exclusive;
            this.sink = sink;
        }

        synchronized Permit permit() {
            if (permit == null) {
                AtomicBoolean released = new AtomicBoolean();
                permit = () -> {
                    if (released.compareAndSet(false, true)) {
                        leave(exclusive);
                    }
                };
            }
            return permit;
        }

        void deliver(Permit granted) {
            if (delivered.compareAndSet(false, true)) {
                if (cancelled.get()) {
                    granted.release();
                } else {
                    sink.success(granted);
                }
            }
        }

        /** Cancelled after being admitted but before delivery: hand the slot back. */
        void releaseIfUndelivered() {
            if (permit != null && delivered.compareAndSet(false, true)) {
                permit.release();
            }
        }
    }
}
