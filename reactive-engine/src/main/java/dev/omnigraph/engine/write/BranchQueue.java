package dev.omnigraph.engine.write;

import dev.omnigraph.engine.gate.Gates;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Mono;

/**
 * The writes of one branch of one graph root waiting for their turn, in arrival order. One turn runs at a time:
 * the first arrival on an idle queue starts the turns; a turn, once it holds the branch gate, takes the waiting
 * writes that can share a commit with the first ({@link QueuedWrite#joins}, at most {@link #maxGroup()}); the
 * next turn starts when it ends. So writes that arrive while a commit is in flight are published together by the
 * next turn, and a write never waits behind a turn that started before it arrived for longer than that turn.
 */
final class BranchQueue {
    /** Most writes one commit carries: bounds a group's planning time and the commit's operation text. */
    static final int DEFAULT_MAX_GROUP = 64;
    private static final ConcurrentHashMap<Gates, ConcurrentHashMap<String, BranchQueue>> QUEUES = new ConcurrentHashMap<>();

    private final ArrayDeque<QueuedWrite> arrivals = new ArrayDeque<>();
    private final int maxGroup = maxGroup();
    private boolean turning;

    /** The queue of {@code branch} on the root whose gates are {@code gates} (shared by every handle on it). */
    static BranchQueue of(Gates gates, String branch) {
        return QUEUES.computeIfAbsent(gates, key -> new ConcurrentHashMap<>())
                .computeIfAbsent(branch, key -> new BranchQueue());
    }

    /** {@code OMNIGRAPH_GROUP_COMMIT_MAX} (or {@code omnigraph.group-commit.max}); 1 turns group commit off. */
    static int maxGroup() {
        String value = System.getProperty("omnigraph.group-commit.max", System.getenv("OMNIGRAPH_GROUP_COMMIT_MAX"));
        try {
            return value == null || value.isBlank() ? DEFAULT_MAX_GROUP : Math.max(1, Integer.parseInt(value.trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("OMNIGRAPH_GROUP_COMMIT_MAX must be a positive integer, got '" + value + "'");
        }
    }

    /** The writes waiting in every branch queue of the root whose gates are {@code gates} (a gauge's reading). */
    static int waiting(Gates gates) {
        ConcurrentHashMap<String, BranchQueue> queues = QUEUES.get(gates);
        if (queues == null) {
            return 0;
        }
        int total = 0;
        for (BranchQueue queue : queues.values()) {
            synchronized (queue) {
                total += queue.arrivals.size();
            }
        }
        return total;
    }

    void submit(QueuedWrite write) {
        synchronized (this) {
            arrivals.addLast(write);
            if (turning) {
                return;
            }
            turning = true;
        }
        turn();
    }

    /**
     * Runs one turn with the pipeline of the first waiting write; the turn takes its writes once it holds the
     * branch gate, so every write that arrived meanwhile is considered. A turn never fails (it settles its writes).
     */
    private void turn() {
        QueuedWrite first;
        synchronized (this) {
            first = arrivals.peekFirst();
        }
        Mono.defer(() -> first.pipeline().runTurn(first, this::takeBatch))
                .onErrorResume(error -> Mono.empty())
                .subscribe(null, null, () -> {
                    synchronized (this) {
                        if (arrivals.isEmpty()) {
                            turning = false;
                            return;
                        }
                    }
                    turn();
                });
    }

    /** The longest prefix of the arrivals that may share a commit with the first; order is never changed. */
    private synchronized List<QueuedWrite> takeBatch() {
        List<QueuedWrite> batch = new ArrayList<>();
        QueuedWrite first = arrivals.pollFirst();
        batch.add(first);
        boolean keyed = first.request().idempotency().isPresent();
        while (batch.size() < maxGroup && !arrivals.isEmpty() && arrivals.peekFirst().joins(first, keyed)) {
            QueuedWrite next = arrivals.pollFirst();
            keyed |= next.request().idempotency().isPresent();
            batch.add(next);
        }
        return batch;
    }
}
