package dev.omnigraph.engine.maintain;

import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.manifest.TableDelta;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Bounds the small fragments a table collects between optimizes, when a handle turns it on (off by default): every
 * n-th commit of this handle to a table (per branch; {@link #EVERY_WRITES} suggested) is followed by a minor
 * compaction of that table ({@link Optimizer#compactSmall}:
 * the same tracked writer, sidecar and publish as optimize, no index work). The check on every write is a counter;
 * the write that crosses it runs the compaction after its own commit is published, before its outcome is delivered
 * (it pays the compaction, one write in n, and a writer faster than compaction is slowed instead of queueing work).
 * The outcome stands whatever the compaction does: a refusal (a recovery is pending) or a failure is logged and
 * left to the next optimize; a failure after arming leaves its sidecar to the usual recovery; a cancel does not stop
 * a compaction that has started (optimize runs detached).
 *
 * <p>Off by default because the compaction's own commit becomes the branch head after the write's: a client that
 * chains {@code If-Graph-Commit} from the commit its last write returned would see a precondition failure every
 * n-th write.
 */
public final class MinorCompactions {
    /** The suggested commits to one table between two minor compactions of it: about this many small fragments. */
    public static final int EVERY_WRITES = 64;

    private static final Logger LOG = LoggerFactory.getLogger(MinorCompactions.class);

    private final ConcurrentHashMap<String, AtomicInteger> commits = new ConcurrentHashMap<>();
    private volatile int every;

    /** Sets the commits between minor compactions of a table; 0 turns them off. */
    public void every(int commitsPerTable) {
        if (commitsPerTable < 0) {
            throw new IllegalArgumentException("commits between minor compactions must be >= 0");
        }
        every = commitsPerTable;
    }

    /** Counts {@code outcome}'s commit on {@code branch} and runs the compactions it makes due; emits the outcome. */
    public Mono<WriteOutcome> after(WriteContext ctx, String branch, WriteOutcome outcome) {
        int threshold = every;
        if (threshold == 0 || outcome.replayed() || outcome.commit().isEmpty()) {
            return Mono.just(outcome);
        }
        List<String> due = new ArrayList<>();
        for (TableDelta delta : outcome.commit().get().deltas()) {
            AtomicInteger count = commits.computeIfAbsent(branch + '\u0000' + delta.tableKey(), key -> new AtomicInteger());
            if (count.incrementAndGet() >= threshold) {
                count.set(0);
                due.add(delta.tableKey());
            }
        }
        if (due.isEmpty()) {
            return Mono.just(outcome);
        }
        return Flux.fromIterable(due)
                .concatMap(table -> new Optimizer(ctx).compactSmall(branch, table)
                        .onErrorResume(error -> {
                            LOG.warn("minor compaction of {} on {} not done: {}", table, branch, error.toString());
                            return Mono.empty();
                        }))
                .then(Mono.just(outcome));
    }
}
