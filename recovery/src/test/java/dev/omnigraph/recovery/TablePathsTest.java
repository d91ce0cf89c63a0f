package dev.omnigraph.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.recovery.Sidecar.Identity;
import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.error.StorageFault;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The table-path rule of sidecars: relative paths under the root being opened, older absolute ones by their layout position. */
class TablePathsTest {
    static final String PERSON = "nodes/0000000000000004-0000000000000009";
    static final TablePaths PATHS = new TablePaths("/copy/graph");

    static TablePin pin(String key, String path) {
        return new TablePin(new Identity(4, 9), key, path, 3, 4, null, "feature");
    }

    static Sidecar sidecar(TablePin... pins) {
        return new Sidecar(Sidecar.SCHEMA_VERSION, "01OP", "0", null, null, Sidecar.WriterKind.Mutation, List.of(pins), null);
    }

    @Test
    void aRelativePathIsResolvedUnderTheRootBeingOpened() {
        TablePin pin = pin("node:Person", PERSON);
        assertThat(PATHS.refusal(sidecar(pin))).isEmpty();
        assertThat(PATHS.ref(pin)).isEqualTo(new TableRef("/copy/graph/" + PERSON, Optional.of("feature")));
        assertThat(new TablePaths("s3://bucket/prefix").resolve(pin)).isEqualTo("s3://bucket/prefix/" + PERSON);
    }

    @Test
    void writersRecordOnlyPathsInsideTheRoot() {
        assertThat(TablePaths.recorded(PERSON)).isEqualTo(PERSON);
        for (String outside : List.of("/original/graph/" + PERSON, "../" + PERSON, "nodes/../../x", "", "s3://b/" + PERSON)) {
            assertThatThrownBy(() -> TablePaths.recorded(outside)).as(outside).isInstanceOf(IllegalArgumentException.class);
        }
    }

    /** Recorded by a build before relative paths: the layout position is kept, the directory it was made in dropped. */
    @ParameterizedTest
    @ValueSource(strings = {"/original/graph/", "/copy/graph/", "s3://bucket/old-prefix/"})
    void anOlderAbsolutePathIsReadByItsPositionInTheLayout(String oldRoot) {
        TablePin pin = pin("node:Person", oldRoot + PERSON);
        assertThat(PATHS.refusal(sidecar(pin))).isEmpty();
        assertThat(PATHS.resolve(pin)).isEqualTo("/copy/graph/" + PERSON);
        TablePin edge = new TablePin(new Identity(12, 30), "edge:Knows", oldRoot + "edges/000000000000000c-000000000000001e",
                1, 2, null, null);
        assertThat(PATHS.resolve(edge)).isEqualTo("/copy/graph/edges/000000000000000c-000000000000001e");
    }

    @ParameterizedTest
    @ValueSource(strings = {"../elsewhere/" + PERSON, "nodes/../../elsewhere", "nodes//x", "./" + PERSON, "nodes\\x",
            // absolute, but not the pin's own place in the layout (another table, another kind, no layout at all)
            "/original/graph/nodes/0000000000000005-0000000000000009", "/original/graph/edges/0000000000000004-0000000000000009",
            "/etc/passwd", "/original/graph/" + PERSON + "/tree/feature",
            // relative and inside the root, but not the pin's own table: another type, the manifest, an encoded escape
            "nodes/0000000000000005-0000000000000009", "__manifest", "nodes/%2e%2e/%2e%2e/x", PERSON + "/tree/feature"})
    void aPathThatIsNotThePinsOwnTableIsRefusedAndNeverResolved(String recorded) {
        TablePin good = new TablePin(new Identity(1, 1), "node:Company", "nodes/0000000000000001-0000000000000001", 3, 4,
                null, null);
        TablePin bad = pin("node:Person", recorded);
        assertThat(PATHS.refusal(sidecar(good, bad))).hasValueSatisfying(reason -> assertThat(reason)
                .contains(recorded, "node:Person", "/copy/graph"));
        assertThatThrownBy(() -> PATHS.ref(bad)).isInstanceOf(StorageFault.class).hasMessageContaining(recorded);
    }
}
