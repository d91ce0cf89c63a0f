package dev.omnigraph.storage;

import static dev.omnigraph.storage.LanceTableStorageTest.PEOPLE;
import static dev.omnigraph.storage.LanceTableStorageTest.people;
import static dev.omnigraph.storage.LanceTableStorageTest.person;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * A staged handle knows the net rows its commit adds (the writer predicts the landed row count from it and stages
 * the manifest Update before the table commit), and an upsert of a pinned snapshot writes its fragment with the
 * schema the last upsert of that table found, beside its key scan, committing it only if the schema still holds.
 */
class StagedRowDeltaTest extends LanceStorageTestBase {
    private TableSnapshot pinned(CommittedVersion committed) {
        TableSnapshot at = committed.snapshot().orElseThrow();
        return TableSnapshot.pinned(at.ref(), at.version(), at.rowCount());
    }

    private CommittedVersion commit(StagedHandle handle) {
        return storage.commitStaged(handle).block();
    }

    private long dataFiles(String table) throws IOException {
        try (Stream<Path> files = Files.list(dir.resolve(table).resolve("data"))) {
            return files.count();
        }
    }

    @Test
    void everyStagedWriteOfRowsKnowsItsNetRowsAndTheCommitLandsOnThem() {
        TableSnapshot empty = storage.create(dir.resolve("people").toString(), PEOPLE).block();
        StagedHandle append = storage.stageAppend(empty, people(0, 3), Map.of()).block();
        assertThat(append.rowDelta()).hasValue(3);
        CommittedVersion three = commit(append);

        // One key replaced, one new: net +1, whether the key scan ran on a pinned or an opened snapshot.
        for (TableSnapshot base : List.of(pinned(three), three.snapshot().orElseThrow())) {
            StagedHandle upsert = storage.stageUpsert(base, List.of(person("p1", 10), person("n" + base.hashCode(), 1)),
                    "id", Map.of()).block();
            assertThat(upsert.rowDelta()).hasValue(1);
            storage.discard(upsert).block();
        }
        StagedHandle upsert = storage.stageUpsert(pinned(three), List.of(person("p1", 10), person("p7", 7)), "id",
                Map.of()).block();
        CommittedVersion four = commit(upsert);
        assertThat(four.rowCount()).isEqualTo(three.rowCount() + upsert.rowDelta().getAsLong()).isEqualTo(4);

        StagedHandle replaceOnly = storage.stageUpsert(pinned(four), List.of(person("p7", 70)), "id", Map.of()).block();
        assertThat(replaceOnly.rowDelta()).hasValue(0);
        StagedHandle delta = storage.stageRowDelta(pinned(four), List.of(person("p8", 8)), List.of("p0", "p2"), "id",
                Map.of()).block().orElseThrow();
        assertThat(delta.rowDelta()).hasValue(-1);
        storage.discard(replaceOnly).block();
        storage.discard(delta).block();
        assertThat(ages(four.snapshot().orElseThrow().ref())).containsExactly("p0=0", "p1=10", "p2=2", "p7=7");
    }

    @Test
    void aRememberedSchemaWritesOneFragmentAndAStaleOneIsNeverCommitted() throws IOException {
        TableSnapshot empty = storage.create(dir.resolve("people").toString(), PEOPLE).block();
        CommittedVersion base = commit(storage.stageAppend(empty, people(0, 2), Map.of()).block());
        CommittedVersion first = commit(storage.stageUpsert(pinned(base), List.of(person("p0", 100)), "id", Map.of()).block());
        long files = dataFiles("people");
        // The schema is remembered now: the fragment written beside the key scan is the one committed.
        CommittedVersion second = commit(storage.stageUpsert(pinned(first), List.of(person("p1", 101)), "id", Map.of()).block());
        assertThat(dataFiles("people")).isEqualTo(files + 1);
        assertThat(ages(second.snapshot().orElseThrow().ref())).containsExactly("p0=100", "p1=101");

        // The table's schema changes under the remembered one: the commit must carry the new column.
        List<Field> wider = new ArrayList<>(PEOPLE.getFields());
        wider.add(Field.nullable("nick", new ArrowType.Utf8()));
        Map<String, Object> p2 = new java.util.HashMap<>(person("p2", 2));
        p2.put("nick", "two");
        CommittedVersion widened = commit(storage.stageOverwrite(second.snapshot().orElseThrow(), List.of(p2),
                new Schema(wider), Map.of()).block());
        Map<String, Object> replaced = new java.util.HashMap<>(person("p2", 20));
        replaced.put("nick", "twenty");
        CommittedVersion after = commit(storage.stageUpsert(pinned(widened), List.of(replaced), "id", Map.of()).block());
        assertThat(after.rowCount()).isEqualTo(1);
        TableSnapshot latest = storage.open(after.snapshot().orElseThrow().ref(), OptionalLong.empty()).block();
        assertThat(latest.schema().findField("nick")).isNotNull();
        assertThat(storage.scan(latest, ScanRequest.all().withColumns(List.of("id", "age", "nick")))
                .flatMapIterable(RowBatch::rows).collectList().block())
                .singleElement().satisfies(row -> {
                    assertThat(row.get("age")).isEqualTo(20L);
                    assertThat(String.valueOf(row.get("nick"))).isEqualTo("twenty");
                });
    }
}
