package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * The CLI prints a stream on its own (blocking) thread while the engine produces it on parallel workers. A plain
 * {@code toIterable()} hands each item over under a lock from the producing worker: under contention that worker
 * waits, BlockHound fails the wait in the middle of the hand-over, the item and every later signal (the query's own
 * deadline included) are lost, and the CLI hangs (CI, {@code CliTest}, twice). {@link Cli#consume} moves the
 * hand-over to a thread that may wait.
 */
class CliConsumeTest {
    final List<Throwable> workerFailures = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() {
        Schedulers.resetOnHandleError(CliConsumeTest.class.getName());
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES) // a lost hand-over hangs; fail instead of stalling the run
    void everyItemProducedOnParallelWorkersReachesTheBlockingLoopAndNoWorkerWaits() {
        Schedulers.onHandleError(CliConsumeTest.class.getName(), (thread, failure) -> workerFailures.add(failure));
        for (int round = 0; round < 300; round++) {
            long seen = 0;
            for (Integer ignored : Cli.consume(Flux.range(0, 2_000).publishOn(Schedulers.parallel(), 4))) {
                seen++;
            }
            assertThat(seen).as("round %d", round).isEqualTo(2_000);
        }
        assertThat(workerFailures).as("failures on the producing workers").isEmpty();
    }
}
