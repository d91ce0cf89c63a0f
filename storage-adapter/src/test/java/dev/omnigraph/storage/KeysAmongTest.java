package dev.omnigraph.storage;

import static dev.omnigraph.storage.LanceTableStorageTest.PEOPLE;
import static dev.omnigraph.storage.LanceTableStorageTest.people;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * {@code keysAmong}: the key-only scan answers exactly what a projected row scan matched in memory answers, at the
 * snapshot's own version (rows deleted or appended later do not count), across several scanned batches.
 */
class KeysAmongTest extends LanceStorageTestBase {
    static final int ROWS = 40_000; // more than two batches of the key scan

    private Set<String> byRowScan(TableSnapshot at, Set<String> wanted) {
        return storage.scan(at, ScanRequest.all().withColumns(java.util.List.of("id"))).flatMapIterable(RowBatch::rows)
                .map(row -> (String) row.get("id")).filter(wanted::contains).collect(Collectors.toSet()).block();
    }

    @Test
    void findsExactlyTheWantedKeysOfItsVersion() {
        TableSnapshot empty = storage.create(dir.resolve("people").toString(), PEOPLE).block();
        TableSnapshot full = storage.commitStaged(storage.stageAppend(empty, people(0, ROWS), Map.of()).block()).block()
                .snapshot().orElseThrow();
        TableSnapshot deleted = storage.commitStaged(storage.stageDelete(full, "id = 'p7' OR id = 'p39999'", Map.of())
                .block().orElseThrow()).block().snapshot().orElseThrow();
        storage.commitStaged(storage.stageAppend(deleted, people(ROWS, ROWS + 5), Map.of()).block()).block();
        Set<String> wanted = new HashSet<>(Set.of("p0", "p7", "p16384", "p39999", "p40000", "ghost", "p"));
        IntStream.range(0, 2_000).forEach(i -> wanted.add("p" + (i * 37)));

        Set<String> atFull = storage.keysAmong(full, "id", wanted::contains).block();
        assertThat(atFull).contains("p0", "p7", "p16384", "p39999").doesNotContain("p40000", "ghost", "p")
                .isEqualTo(byRowScan(full, wanted));
        Set<String> atDeleted = storage.keysAmong(deleted, "id", wanted::contains).block();
        assertThat(atDeleted).doesNotContain("p7", "p39999", "p40000").isEqualTo(byRowScan(deleted, wanted));
        assertThat(storage.keysAmong(empty, "id", wanted::contains).block()).isEmpty();
        assertThat(storage.keysAmong(full, "id", new KeysWanted(wanted)).block()).as("matched as bytes in place")
                .isEqualTo(atFull);
        assertThat(storage.keysAmong(deleted, "id", new KeysWanted(wanted)).block()).isEqualTo(atDeleted);
    }

    @Test
    void aWantedSetMatchesAnyUnicodeByItsBytesAndNothingThatOnlySharesAPrefixOrHash() {
        TableSnapshot empty = storage.create(dir.resolve("people").toString(), PEOPLE).block();
        java.util.List<String> ids = java.util.List.of("", "ü", "漢字", "😀x", "p1", "Aa", "BB", "p10");
        TableSnapshot some = storage.commitStaged(storage.stageAppend(empty, ids.stream()
                .map(id -> LanceTableStorageTest.person(id, 1)).collect(Collectors.toList()), Map.of()).block()).block()
                .snapshot().orElseThrow();
        // "Aa" and "BB" have the same String hash; "漢" and "😀" are prefixes of held ids; "p" of two.
        Set<String> wanted = Set.of("", "漢", "漢字", "😀", "😀x", "Aa", "p", "p10", "ghost");
        assertThat(storage.keysAmong(some, "id", new KeysWanted(wanted)).block())
                .containsExactlyInAnyOrder("", "漢字", "😀x", "Aa", "p10")
                .isEqualTo(storage.keysAmong(some, "id", wanted::contains).block());
    }

    @Test
    void aColumnThatIsNotTextIsRefusedAndCountedAsOneScan() {
        TableSnapshot empty = storage.create(dir.resolve("people").toString(), PEOPLE).block();
        TableSnapshot some = storage.commitStaged(storage.stageAppend(empty, people(0, 3), Map.of()).block()).block()
                .snapshot().orElseThrow();
        assertThatThrownBy(() -> storage.keysAmong(some, "age", Set.of("1")::contains).block())
                .hasMessageContaining("key column age is not a string column");
        StorageCallCounter counter = new StorageCallCounter();
        CountingTableStorage counted = new CountingTableStorage(storage, counter);
        assertThat(counted.keysAmong(some, "id", Set.of("p1", "p9")::contains).block()).containsExactly("p1");
        assertThat(counter.get(StorageCallCounter.Call.SCAN)).isEqualTo(1);
    }
}
