package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.StorageCallCounter;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The single-row write path overlaps steps that write only invisible files with steps that must precede a commit:
 * staging runs beside the recheck, an append's manifest Update is staged beside the arm and the table commit, and
 * the confirmation is written beside the publish. These pin that the overlap never lets a commit pass what it
 * depends on (the manifest commit waits for every table commit; the answer waits for both the confirmation and
 * the publish), and that every staged handle of an attempt that stops is released (the table storage fails on a
 * leaked Arrow buffer when the test closes it).
 */
class PublishOverlapTest extends ConstrainedGraphTest {
    static final String QUERIES = """
            query note($t: String) { insert Note { text: $t } }
            query person($n: String, $a: I32) { insert Person { name: $n, age: $a } }
            """;
    final StorageCallCounter counter = new StorageCallCounter();

    @Override
    StorageServices newServices() {
        return EngineFixture.countingServices(counter);
    }

    Mono<WriteOutcome> person(String name, int age) {
        return graph.mutate("main", QUERIES, "person", Map.of("n", name, "a", age), WriteOptions.DEFAULT);
    }

    Mono<WriteOutcome> note(String text) {
        return graph.mutate("main", QUERIES, "note", Map.of("t", text), WriteOptions.DEFAULT);
    }

    String head() {
        return graph.commits("main").blockFirst().id();
    }

    List<Object> notes() {
        return rows(graph, "node:Note").stream().map(row -> row.get("text")).toList();
    }

    @Test
    void theManifestCommitDoesNotWaitForTheConfirmationButTheAnswerWaitsForBoth() throws Exception {
        String before = head();
        Failpoints.Parked confirmed = graph.failpoints().park("mutation." + FailpointCatalog.AFTER_CONFIRM);
        Failpoints.Parked published = graph.failpoints().park("mutation." + FailpointCatalog.AFTER_PUBLISH);
        CompletableFuture<WriteOutcome> write = note("a").toFuture();
        confirmed.reached().block();
        published.reached().block();

        // Published while its confirmation is held: visible, but not acknowledged.
        assertThat(head()).isNotEqualTo(before);
        assertThat(notes()).containsExactly("a");
        published.release();
        assertThat(write).isNotDone(); // the confirmation is still held, so nothing can answer yet

        confirmed.release();
        GraphCommit landed = write.get(60, TimeUnit.SECONDS).commit().orElseThrow();
        assertThat(head()).isEqualTo(landed.id());
        assertThat(landed.parentIds()).containsExactly(before);
        assertThat(graph.sidecars().list().collectList().block()).isEmpty();
        assertThat(graph.recoveries().collectList().block()).isEmpty();
    }

    @Test
    void anEarlyStagedManifestUpdateIsCommittedOnlyAfterTheTableCommit() throws Exception {
        String before = head();
        // The append's manifest Update is staged beside the arm; the table commit is held after it landed.
        Failpoints.Parked committed = graph.failpoints().park("mutation." + FailpointCatalog.AFTER_COMMIT + "1");
        CompletableFuture<WriteOutcome> write = note("a").toFuture();
        committed.reached().block();
        assertThat(head()).isEqualTo(before);
        assertThat(graph.sidecars().list().collectList().block()).singleElement()
                .satisfies(sidecar -> assertThat(sidecar.protocolV3().effectPhase()).isEqualTo(Sidecar.EffectPhase.Armed));

        committed.release();
        assertThat(write.get(60, TimeUnit.SECONDS).commit()).isPresent();
        assertThat(notes()).containsExactly("a");
    }

    @Test
    void aKeyedInsertStagesItsManifestUpdateBeforeItsTableCommitOnTheRowsItPredicted() throws Exception {
        person("Ann", 1).block(Duration.ofSeconds(60));
        // Replacing a key (net 0 rows), then adding one (net +1): each is predicted from its staged key scan.
        for (String name : List.of("Ann", "Bob")) {
            Failpoints.Parked committed = graph.failpoints().park("mutation." + FailpointCatalog.AFTER_COMMIT + "1");
            long stagesBefore = counter.get(StorageCallCounter.Call.STAGE);
            CompletableFuture<WriteOutcome> write = person(name, 2).toFuture();
            committed.reached().block();
            assertThat(counter.get(StorageCallCounter.Call.STAGE) - stagesBefore)
                    .as("the person upsert and the manifest Update are both staged when the table commit lands")
                    .isEqualTo(2);
            committed.release();
            GraphCommit landed = write.get(60, TimeUnit.SECONDS).commit().orElseThrow();
            assertThat(head()).isEqualTo(landed.id());
        }
        assertThat(counter.get(StorageCallCounter.Call.DISCARD)).as("no early Update was mispredicted").isZero();
        assertThat(graph.snapshot(ReadTarget.branch("main")).block().table("node:Person").orElseThrow().rowCount())
                .isEqualTo(2);
        assertThat(rows(graph, "node:Person").stream().map(row -> row.get("name") + "=" + row.get("age")).sorted())
                .containsExactly("Ann=2", "Bob=2");
    }

    @Test
    void aPublishThatFailsBeforeItsManifestCommitLeavesTheOldGraphAlthoughTheConfirmationLanded() {
        String before = head();
        String point = "mutation." + FailpointCatalog.BEFORE_MANIFEST_COMMIT;
        graph.failpoints().arm(point, new Failpoints.Action.Error());
        assertThatThrownBy(() -> note("a").block(Duration.ofSeconds(60))).isInstanceOf(StorageFault.class)
                .hasMessageContaining(point);
        graph.failpoints().disarm(point);

        assertThat(notes()).isEmpty();
        assertThat(graph.sidecars().list().collectList().block()).isEmpty();
        List<RecoveryRecord> audit = graph.recoveries().collectList().block();
        assertThat(audit).singleElement().satisfies(record -> assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack));
        // Only the rollback's own commit follows the old head; the write's commit never landed.
        assertThat(graph.commits("main").map(GraphCommit::id).collectList().block())
                .startsWith(audit.get(0).graphCommitId().orElseThrow(), before);
        assertThat(note("b").block(Duration.ofSeconds(60)).commit()).isPresent();
        assertThat(notes()).containsExactly("b");
    }

    @Test
    void aRecheckThatFailsBesideFinishedStagingReleasesTheStagedFilesAndArmsNothing() {
        String before = head();
        String point = "mutation." + FailpointCatalog.AFTER_GATES;
        graph.failpoints().arm(point, new Failpoints.Action.Error());
        assertThatThrownBy(() -> note("a").block(Duration.ofSeconds(60))).isInstanceOf(StorageFault.class)
                .hasMessageContaining(point);
        graph.failpoints().disarm(point);

        assertThat(head()).isEqualTo(before);
        assertThat(notes()).isEmpty();
        assertThat(graph.sidecars().list().collectList().block()).isEmpty();
        assertThat(graph.recoveries().collectList().block()).isEmpty();
    }
}
