package dev.omnigraph.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.CountingObjectStore;
import dev.omnigraph.storage.CountingTableStorage;
import dev.omnigraph.storage.LocalObjectStore;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.StorageCallCounter;
import dev.omnigraph.storage.StorageCallCounter.Call;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The counting wrappers count each call class once per subscription and pass results through unchanged. */
class CountingWrappersTest {
    @TempDir
    Path dir;

    @Test
    void tableCallsAreCountedByClass() {
        StorageCallCounter counter = new StorageCallCounter();
        try (CountingTableStorage tables = new CountingTableStorage(StorageFixture.newTableStorage(), counter)) {
            String path = dir.resolve("t").toString();
            Schema schema = new Schema(List.of(Field.notNullable("id", new ArrowType.Utf8())));
            tables.create(path, schema).block();
            TableRef ref = TableRef.main(path);
            var snapshot = tables.open(ref, OptionalLong.empty()).block();
            var staged = tables.stageAppend(snapshot, List.of(Map.of("id", "a"), Map.of("id", "b")), Map.of()).block();
            long version = tables.commitStaged(staged).block().version();
            var latest = tables.open(ref, OptionalLong.of(version)).block();
            assertThat(tables.scan(latest, ScanRequest.all()).count().block()).isEqualTo(1);
            assertThat(tables.head(ref).block()).isEqualTo(version);

            Map<Call, Long> counts = counter.snapshot();
            assertThat(counts).containsEntry(Call.CREATE, 1L).containsEntry(Call.OPEN, 2L).containsEntry(Call.STAGE, 1L)
                    .containsEntry(Call.COMMIT, 1L).containsEntry(Call.SCAN, 1L).containsEntry(Call.SCAN_ROWS, 2L)
                    .containsEntry(Call.HEAD, 1L).containsEntry(Call.RESTORE, 0L);
            assertThat(StorageCallCounter.delta(Map.of(), counts)).containsKeys("create", "open", "stage", "commit", "scan")
                    .doesNotContainKey("restore");
        }
    }

    @Test
    void objectStoreCallsAreCountedByClass() {
        StorageCallCounter counter = new StorageCallCounter();
        CountingObjectStore store = new CountingObjectStore(new LocalObjectStore(dir, StorageFixture.scheduler()), counter);
        store.put("a/x.json", new byte[] {1}).block();
        assertThat(store.putIfAbsent("a/x.json", new byte[] {2}).block()).isFalse();
        assertThat(store.get("a/x.json").block()).hasValueSatisfying(bytes -> assertThat(bytes).containsExactly(1));
        assertThat(store.list("a/").block()).containsExactly("a/x.json");
        assertThat(store.exists("a/x.json").block()).isTrue();
        assertThat(store.delete("a/x.json").block()).isTrue();
        assertThat(StorageCallCounter.delta(Map.of(), counter.snapshot())).containsExactly(
                Map.entry("obj.get", 1L), Map.entry("obj.put", 1L), Map.entry("obj.putIfAbsent", 1L),
                Map.entry("obj.list", 1L), Map.entry("obj.delete", 1L), Map.entry("obj.exists", 1L));
    }
}
