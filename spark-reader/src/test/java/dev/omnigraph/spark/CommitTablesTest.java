package dev.omnigraph.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.NotFound;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * {@link CommitTables} without Spark: a commit's tables are the snapshot's, as absolute dataset URIs with their
 * pinned versions and the connector's options; {@link CommitTables#read} opens and closes the graph itself; an
 * unknown type is {@code not_found}; a table a branch wrote (a Lance branch ref) is refused.
 */
class CommitTablesTest {
    @Test
    void listsTheSnapshotsTablesAndRefusesLanceBranchTables(@TempDir Path dir) {
        Path root = dir.resolve("g");
        StorageServices services = StorageServices.create();
        Omnigraph graph = Omnigraph.at(root).services(services).init(SparkCommitReadTest.SCHEMA).block();
        try {
            load(graph, "main", "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}");
            CommitTables head = CommitTables.of(graph, ReadTarget.main()).block();
            PinnedTable person = head.node("Person");
            assertThat(person.datasetUri()).startsWith(graph.location().uri() + "/nodes/");
            assertThat(person.rowCount()).isEqualTo(1);
            assertThat(person.sparkOptions()).containsEntry("path", person.datasetUri())
                    .containsEntry("version", Long.toString(person.version()));
            assertThat(head.edge("Knows").rowCount()).isZero();
            assertThat(head.tables()).hasSize(2);
            assertThatThrownBy(() -> head.node("Robot")).isInstanceOf(NotFound.class);

            graph.branches().create("feature").block();
            assertThat(CommitTables.of(graph, ReadTarget.branch("feature")).block().tables())
                    .as("a branch that wrote nothing reads main's datasets").isEqualTo(head.tables());
            load(graph, "feature", "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\"}}");
            assertThatThrownBy(() -> CommitTables.of(graph, ReadTarget.branch("feature")).block())
                    .isInstanceOf(BadRequest.class).hasMessageContaining("Lance branch");
        } finally {
            graph.close();
        }
        CommitTables read = CommitTables.read(root.toUri(), ReadTarget.main()).block();
        assertThat(read.node("Person").rowCount()).isEqualTo(1);
        services.close();
    }

    private static void load(Omnigraph graph, String branch, String line) {
        graph.load(branch, LoadMode.MERGE, Flux.just(ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8))),
                LoadOptions.DEFAULT).block();
    }
}
