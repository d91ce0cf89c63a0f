package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Lance 7.0 resolves the files of an index inherited from main under the parent branch's tree when a branch of a
 * branch reads it ({@code tree/<parent>/_indices/…}: not found). Scans, counts and staged upserts on such a branch
 * must still answer (without the scalar index), and a branch of main keeps using it.
 */
class NestedBranchIndexTest extends LanceStorageTestBase {
    @Test
    void aBranchOfABranchFiltersAndUpsertsOverAnIndexBuiltOnMain() {
        TableRef main = TableRef.main(storage.create(dir.resolve("people").toString(), LanceTableStorageTest.PEOPLE).block().ref().path());
        TableSnapshot base = storage.open(main, OptionalLong.empty()).block();
        long appended = storage.commitStaged(storage.stageAppend(base, LanceTableStorageTest.people(0, 20), Map.of()).block()).block().version();
        TableSnapshot filled = storage.open(main, OptionalLong.of(appended)).block();
        long indexed = storage.commitStaged(storage.stageIndexes(filled, List.of(IndexCoverageTest.ID), Map.of()).block().orElseThrow())
                .block().version();

        storage.createBranch(main, indexed, "a").block();
        TableRef a = new TableRef(main.path(), Optional.of("a"));
        TableSnapshot onA = storage.open(a, OptionalLong.empty()).block();
        long aWrote = storage.commitStaged(storage.stageUpsert(onA, LanceTableStorageTest.people(20, 21), "id", Map.of()).block())
                .block().version();
        storage.createBranch(a, aWrote, "b").block();
        TableRef b = new TableRef(main.path(), Optional.of("b"));

        TableSnapshot onB = storage.open(b, OptionalLong.empty()).block();
        assertThat(storage.count(onB, Optional.of("id = 'p5'")).block()).isEqualTo(1);
        assertThat(storage.count(onB, Optional.of("id IN ('p5', 'p20', 'nope')")).block()).isEqualTo(2);
        long bWrote = storage.commitStaged(storage.stageUpsert(onB, List.of(LanceTableStorageTest.person("p5", 99)), "id", Map.of())
                .block()).block().version();
        TableSnapshot after = storage.open(b, OptionalLong.of(bWrote)).block();
        assertThat(storage.count(after, Optional.of("id = 'p5' AND age = 99")).block()).isEqualTo(1);
        assertThat(storage.count(after, Optional.empty()).block()).isEqualTo(21);
        assertThat(storage.count(storage.open(a, OptionalLong.empty()).block(), Optional.of("id = 'p5' AND age = 5")).block())
                .isEqualTo(1);
    }
}
