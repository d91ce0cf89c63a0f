package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.CONSTRAINED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.CountingObjectStore;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.StorageCallCounter;
import dev.omnigraph.storage.StorageCallCounter.Call;
import dev.omnigraph.storage.error.RecoveryRequired;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sidecar directory on the write path: a read-write handle answers from the root's in-memory view (shared by
 * every read-write handle of the process), so a write lists nothing; a read-only handle reads the directory.
 */
class SidecarDirectoryReadsTest {
    static final Failpoints.Action ERROR = new Failpoints.Action.Error();

    @TempDir
    Path dir;
    StorageCallCounter counter = new StorageCallCounter();
    StorageServices services;
    Omnigraph graph;

    @BeforeEach
    void setUp() {
        services = EngineFixture.services().withObjectStores(store -> new CountingObjectStore(store, counter));
        graph = Omnigraph.init(services, dir.resolve("g"), CONSTRAINED).block();
    }

    @AfterEach
    void tearDown() {
        EngineFixture.close(services);
    }

    WriteOutcome note(Omnigraph on, String text) {
        return on.mutate("main", RecoveryTest.QUERIES, "note", Map.of("t", text), WriteOptions.DEFAULT).block();
    }

    @Test
    void aSingleRowWriteReadsTheSidecarDirectoryNotAtAll() {
        note(graph, "first"); // loads the view: the one listing of this writer tenure
        Map<Call, Long> before = counter.snapshot();
        assertThat(note(graph, "second").commit()).isPresent();
        Map<Call, Long> after = counter.snapshot();
        assertThat(after.get(Call.OBJECT_LIST) - before.get(Call.OBJECT_LIST)).isZero();
        // The sidecar is written twice (armed, confirmed) and deleted once; never read back.
        assertThat(after.get(Call.OBJECT_PUT) - before.get(Call.OBJECT_PUT)).isEqualTo(2);
        assertThat(after.get(Call.OBJECT_DELETE) - before.get(Call.OBJECT_DELETE)).isEqualTo(1);
    }

    @Test
    void everyReadWriteHandleOfTheProcessSeesASidecarAnotherLeft() {
        Omnigraph second = Omnigraph.open(services, graph.root(), OpenMode.READ_WRITE).block();
        graph.failpoints().arm("mutation.after_commit:1", ERROR);
        graph.failpoints().arm("recovery.before_plan_write", ERROR);
        assertThatThrownBy(() -> note(graph, "stuck")).isInstanceOf(RecoveryRequired.class);
        graph.failpoints().disarm("mutation.after_commit:1");
        graph.failpoints().disarm("recovery.before_plan_write");

        assertThat(second.pendingSidecars().collectList().block()).hasSize(1);
        assertThatThrownBy(() -> note(second, "blocked")).isInstanceOf(RecoveryRequired.class);
        Omnigraph reader = Omnigraph.open(services, graph.root(), OpenMode.READ_ONLY).block();
        assertThat(reader.pendingSidecars().collectList().block()).hasSize(1);

        // A third open sweeps it; the view every handle shares says so at once.
        Omnigraph third = Omnigraph.open(services, graph.root(), OpenMode.READ_WRITE).block();
        assertThat(second.pendingSidecars().collectList().block()).isEmpty();
        assertThat(reader.pendingSidecars().collectList().block()).isEmpty();
        assertThat(note(second, "free").commit()).isPresent();
        third.close();
        second.close();
    }
}
