package dev.omnigraph.engine;

import static dev.omnigraph.engine.EngineFixture.SOCIAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.OmnigraphException;
import dev.omnigraph.storage.error.StorageFault;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A failed {@code init} removes exactly what it created, so the same init can simply be run again. */
class InitFailureTest extends GraphRootTestBase {
    static Failpoints failing(String point) {
        return Failpoints.none().arm(point, new Failpoints.Action.Error());
    }

    static List<String> contents(Path path) throws IOException {
        try (Stream<Path> files = Files.walk(path)) {
            return files.map(file -> path.relativize(file).toString()).filter(name -> !name.isEmpty()).sorted().toList();
        }
    }

    void assertRetrySucceeds() {
        Omnigraph graph = Omnigraph.init(services, root, SOCIAL).block();
        assertThat(graph.snapshot(ReadTarget.main()).block().tables()).hasSize(4);
        assertThat(Omnigraph.open(services, root, OpenMode.READ_WRITE).block()).isNotNull();
        assertThat(root.resolve(Omnigraph.INIT_CLAIM)).doesNotExist();
    }

    @ParameterizedTest
    @ValueSource(strings = {FailpointCatalog.INIT_AFTER_CLAIM, FailpointCatalog.INIT_AFTER_TABLES,
            FailpointCatalog.INIT_AFTER_SCHEMA_FILES})
    void aFailedInitRemovesTheRootItCreated(String point) {
        assertThatThrownBy(() -> Omnigraph.init(services, root, SOCIAL, failing(point)).block())
                .isInstanceOf(StorageFault.class).hasMessageContaining(point);
        assertThat(root).doesNotExist();
        assertRetrySucceeds();
    }

    @ParameterizedTest
    @ValueSource(strings = {FailpointCatalog.INIT_AFTER_CLAIM, FailpointCatalog.INIT_AFTER_TABLES,
            FailpointCatalog.INIT_AFTER_SCHEMA_FILES})
    void aFailedInitInAnExistingDirectoryKeepsWhatWasAlreadyThere(String point) throws IOException {
        Files.createDirectories(root.resolve("nodes"));
        Files.writeString(root.resolve("README.txt"), "mine");
        Files.writeString(root.resolve("nodes/keep.txt"), "mine too");
        assertThatThrownBy(() -> Omnigraph.init(services, root, SOCIAL, failing(point)).block())
                .isInstanceOf(StorageFault.class);
        assertThat(contents(root)).containsExactly("README.txt", "nodes", "nodes/keep.txt");
        assertRetrySucceeds();
        assertThat(root.resolve("README.txt")).hasContent("mine");
    }

    @Test
    void aTableThatCannotBeCreatedUndoesTheTablesBeforeIt() throws IOException {
        // Edge tables are created first; a regular file named "nodes" makes the first node table fail for real.
        Files.createDirectories(root);
        Files.writeString(root.resolve("nodes"), "in the way");
        assertThatThrownBy(() -> Omnigraph.init(services, root, SOCIAL).block()).isInstanceOf(OmnigraphException.class);
        assertThat(contents(root)).containsExactly("nodes");
        Files.delete(root.resolve("nodes"));
        assertRetrySucceeds();
    }

    @Test
    void aManifestPathThatCannotBeCheckedIsRefusedBeforeAnyClaim() throws IOException {
        Files.createDirectories(root);
        Files.writeString(root.resolve("__manifest"), "not a directory");
        assertThatThrownBy(() -> Omnigraph.init(services, root, SOCIAL).block()).isInstanceOf(StorageFault.class);
        assertThat(contents(root)).containsExactly("__manifest");
    }

    @Test
    void aClaimThatCannotBeRemovedAfterTheManifestIsHarmless() {
        Omnigraph graph = Omnigraph.init(services, root, SOCIAL, failing(FailpointCatalog.INIT_BEFORE_CLAIM_DELETE)).block();
        assertThat(graph).isNotNull();
        assertThat(root.resolve(Omnigraph.INIT_CLAIM)).exists();
        assertThat(Omnigraph.open(services, root, OpenMode.READ_WRITE).block()).isNotNull();
        assertThatThrownBy(() -> Omnigraph.init(services, root, SOCIAL).block()).isInstanceOf(Conflict.class)
                .hasMessageContaining("already exists");
    }
}
