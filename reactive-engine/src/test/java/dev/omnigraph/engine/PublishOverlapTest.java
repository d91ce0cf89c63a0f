package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The single-row write path overlaps steps that write only invisible files with steps that must precede a commit:
 * staging runs beside the recheck, and the manifest Update is staged while the confirmation is written. These
 * pin that the overlap never lets a commit pass the durable record it depends on, and that every staged handle
 * of an attempt that stops is released (the table storage fails on a leaked Arrow buffer when the test closes it).
 */
class PublishOverlapTest extends ConstrainedGraphTest {
    static final String QUERIES = """
            query note($t: String) { insert Note { text: $t } }
            """;

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
    void theManifestCommitWaitsForTheConfirmationAndForAfterConfirm() {
        String before = head();
        Failpoints.Parked parked = graph.failpoints().park("mutation." + FailpointCatalog.AFTER_CONFIRM);
        Mono<WriteOutcome> write = note("a").cache();
        write.subscribe(outcome -> { }, error -> { });
        parked.reached().block();

        // Confirmed and durable, the manifest Update staged beside it, but nothing published yet.
        assertThat(graph.sidecars().list().collectList().block()).singleElement()
                .satisfies(sidecar -> assertThat(sidecar.protocolV3().effectPhase()).isEqualTo(Sidecar.EffectPhase.EffectsConfirmed));
        assertThat(head()).isEqualTo(before);
        assertThat(notes()).isEmpty();

        parked.release();
        GraphCommit landed = write.block(Duration.ofSeconds(60)).commit().orElseThrow();
        assertThat(head()).isEqualTo(landed.id());
        assertThat(landed.parentIds()).containsExactly(before);
        assertThat(notes()).containsExactly("a");
        assertThat(graph.sidecars().list().collectList().block()).isEmpty();
    }

    @Test
    void aConfirmationThatFailsBesideAStagedManifestUpdateLeavesTheOldGraph() {
        String before = head();
        // The second sidecar write of the attempt is its confirmation; the manifest Update is staged meanwhile.
        graph.failpoints().arm(FailpointCatalog.SIDECAR_WRITE, new Failpoints.Action.OnHit(2, new Failpoints.Action.Error()));
        assertThatThrownBy(() -> note("a").block(Duration.ofSeconds(60))).isInstanceOf(StorageFault.class)
                .hasMessageContaining(FailpointCatalog.SIDECAR_WRITE);
        graph.failpoints().disarm(FailpointCatalog.SIDECAR_WRITE);

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
