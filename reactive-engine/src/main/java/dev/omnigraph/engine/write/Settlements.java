package dev.omnigraph.engine.write;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The outcome of every write of one queue turn, held until the turn has released its gates and then handed to
 * each write (so a caller that sees its outcome also sees the gates idle). The first outcome recorded wins.
 */
final class Settlements {
    private final Map<QueuedWrite, Object> outcomes = new IdentityHashMap<>();

    synchronized void succeed(QueuedWrite write, WriteOutcome outcome) {
        outcomes.putIfAbsent(write, outcome);
    }

    synchronized void fail(QueuedWrite write, Throwable error) {
        outcomes.putIfAbsent(write, error);
    }

    void failAll(List<QueuedWrite> writes, Throwable error) {
        writes.forEach(write -> fail(write, error));
    }

    synchronized boolean isEmpty() {
        return outcomes.isEmpty();
    }

    /** Records every outcome held here in {@code into} (where the first recorded still wins). */
    synchronized void copyInto(Settlements into) {
        outcomes.forEach((write, outcome) -> {
            if (outcome instanceof WriteOutcome done) {
                into.succeed(write, done);
            } else {
                into.fail(write, (Throwable) outcome);
            }
        });
    }

    /** Hands every write its outcome; a write nothing settled (a bug) fails rather than hangs. */
    void emit(List<QueuedWrite> writes) {
        for (QueuedWrite write : writes) {
            Object outcome;
            synchronized (this) {
                outcome = outcomes.get(write);
            }
            if (outcome instanceof WriteOutcome done) {
                write.result().tryEmitValue(done);
            } else {
                write.result().tryEmitError(outcome instanceof Throwable error ? error
                        : new IllegalStateException("write " + write.request().operation() + " was never settled"));
            }
        }
    }
}
