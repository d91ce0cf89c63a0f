package dev.omnigraph.storage.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.error.UnsupportedStamp;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The stamp is checked on every load: older, newer, unreadable and missing stamps are refused with the fix. */
class StampTest extends ManifestStoreTestBase {
    void writeStamp(Object value) throws Exception {
        TableSnapshot empty = tables.create(store.manifestPath(), ManifestSchema.SCHEMA).block();
        Map<String, Object> stamp = ManifestRows.stamp(ManifestSchema.INTERNAL_SCHEMA_VERSION);
        stamp.put(ManifestSchema.METADATA, new ObjectMapper().writeValueAsString(Map.of("internal_schema_version", value)));
        tables.commitStaged(tables.stageAppend(empty, List.of(stamp), Map.of()).block()).block();
    }

    @Test
    void anOlderStampAsksForARebuild() throws Exception {
        writeStamp(5);
        assertThatThrownBy(() -> store.load("main").block()).isInstanceOfSatisfying(UnsupportedStamp.class,
                e -> assertThat(e.found()).isEqualTo("5")).hasMessageContaining("rebuild it via export, init and load");
    }

    @Test
    void aNewerStampAsksForAnUpgrade() throws Exception {
        writeStamp(7);
        assertThatThrownBy(() -> store.load("main").block()).isInstanceOf(UnsupportedStamp.class)
                .hasMessageContaining("upgrade omnigraph");
    }

    @Test
    void anUnreadableStampIsNamed() throws Exception {
        writeStamp("six");
        assertThatThrownBy(() -> store.load("main").block()).isInstanceOf(UnsupportedStamp.class)
                .hasMessageContaining("\"six\"");
    }

    @Test
    void anUnstampedManifestIsHalfInitialised() {
        tables.create(store.manifestPath(), ManifestSchema.SCHEMA).block();
        assertThatThrownBy(() -> store.load("main").block()).isInstanceOf(UnsupportedStamp.class)
                .hasMessageContaining("half-initialised");
    }

    @Test
    void theServedStampLoads() throws Exception {
        writeStamp(ManifestSchema.INTERNAL_SCHEMA_VERSION);
        assertThat(store.load("main").block().liveTables()).isEmpty();
    }
}
