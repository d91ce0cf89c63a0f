package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.merge.MergeOutcome;
import dev.omnigraph.engine.merge.MergeResult;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.Failpoints;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A merge holds its source's branch gate as well as its target's, for its whole attempt, both taken in name
 * order: the source it merges is the one captured under that gate, a source write waits for the merge, and two
 * opposite merges run one after the other instead of deadlocking.
 */
class MergeGatesTest extends MergeFixture {
    private static final Duration LIMIT = Duration.ofSeconds(120);

    @BeforeEach
    void seed() {
        load("main", LoadMode.APPEND, person("Sa", 1), person("Ta", 1));
        branch("a");
        branch("b");
    }

    @Test
    void twoOppositeMergesAtOnceRunOneAfterTheOther() {
        load("a", LoadMode.MERGE, person("Sa", 10));
        load("b", LoadMode.MERGE, person("Ta", 20));
        String aHead = head("a");
        String bHead = head("b");
        Failpoints.Parked parked = graph.failpoints().park("branch_merge.after_gates");
        CompletableFuture<MergeResult> aIntoB = graph.mergeBranch("a", "b", false, Optional.empty()).toFuture();
        parked.reached().block();
        // a → b holds the gates of a and b; b → a takes them in the same order, so it waits for both.
        CompletableFuture<MergeResult> bIntoA = graph.mergeBranch("b", "a", false, Optional.empty()).toFuture();
        parked.release();
        MergeResult first = aIntoB.orTimeout(LIMIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join();
        MergeResult second = bIntoA.orTimeout(LIMIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join();
        graph.failpoints().disarm("branch_merge.after_gates");

        assertThat(first.outcome()).isEqualTo(MergeOutcome.MERGED);
        String firstCommit = first.commit().orElseThrow().id();
        assertThat(parents(firstCommit)).containsExactly(bHead, aHead);
        // The second captured b only once the first had published on it: it merges the first's commit.
        assertThat(second.outcome()).isEqualTo(MergeOutcome.FAST_FORWARD);
        assertThat(parents(second.commit().orElseThrow().id())).containsExactly(aHead, firstCommit);
        assertThat(column("a", "node:Person", "age")).isEqualTo(column("b", "node:Person", "age"))
                .containsEntry("Sa", 10).containsEntry("Ta", 20);
        assertThat(graph.gates().allIdle()).isTrue();
    }

    @Test
    void aMergeWaitsForASourceWriteInFlightAndMergesIt() {
        Failpoints.Parked parked = graph.failpoints().park("load.after_gates");
        CompletableFuture<WriteOutcome> writing = graph.load("a", LoadMode.MERGE, ndjson(person("Sa", 10)),
                LoadOptions.DEFAULT).toFuture();
        parked.reached().block();
        // The source's gate is held by its write: the merge captures the source only after that write published.
        CompletableFuture<MergeResult> merging = graph.mergeBranch("a", "main", false, Optional.empty()).toFuture();
        parked.release();
        String written = writing.orTimeout(LIMIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join()
                .commit().orElseThrow().id();
        MergeResult merged = merging.orTimeout(LIMIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join();
        graph.failpoints().disarm("load.after_gates");

        assertThat(merged.outcome()).isEqualTo(MergeOutcome.FAST_FORWARD);
        assertThat(parents(merged.commit().orElseThrow().id())).last().isEqualTo(written);
        assertThat(column("main", "node:Person", "age")).containsEntry("Sa", 10);
    }

    @Test
    void aSourceWriteDuringAMergeWaitsAndIsNotMerged() {
        load("a", LoadMode.MERGE, person("Sa", 10));
        String captured = head("a");
        Failpoints.Parked parked = graph.failpoints().park("branch_merge.after_gates");
        CompletableFuture<MergeResult> merging = graph.mergeBranch("a", "main", false, Optional.empty()).toFuture();
        parked.reached().block();
        CompletableFuture<WriteOutcome> writing = graph.load("a", LoadMode.MERGE, ndjson(person("Ta", 99)),
                LoadOptions.DEFAULT).toFuture();
        assertThat(writing).isNotDone(); // it queues on the source's gate, which the merge holds
        parked.release();
        MergeResult merged = merging.orTimeout(LIMIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join();
        String written = writing.orTimeout(LIMIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join()
                .commit().orElseThrow().id();
        graph.failpoints().disarm("branch_merge.after_gates");

        assertThat(merged.outcome()).isEqualTo(MergeOutcome.FAST_FORWARD);
        assertThat(parents(merged.commit().orElseThrow().id())).last().isEqualTo(captured);
        assertThat(parents(written)).containsExactly(captured);
        assertThat(column("main", "node:Person", "age")).containsEntry("Sa", 10).containsEntry("Ta", 1);
        assertThat(column("a", "node:Person", "age")).containsEntry("Ta", 99);
        // The later source commit is the next merge's.
        assertThat(merge("a", "main").outcome()).isEqualTo(MergeOutcome.MERGED);
        assertThat(column("main", "node:Person", "age")).containsEntry("Ta", 99);
    }
}
