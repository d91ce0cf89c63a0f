package dev.omnigraph.storage;

import static dev.omnigraph.storage.LanceTableStorageTest.PEOPLE;
import static dev.omnigraph.storage.LanceTableStorageTest.people;
import static dev.omnigraph.storage.LanceTableStorageTest.person;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code stageUpsertAt}: the caller's row addresses replace the key scan only when the dataset is exactly the
 * snapshot they were taken at; anything else falls back to finding the rows by key. The first test proves the
 * addresses, not a scan, decided what was deleted (it hands over a deliberately different, valid address).
 */
class StageUpsertAtTest extends LanceStorageTestBase {
    /** p0..p2 appended in one commit: one fragment, p{i} at offset i. */
    private CommittedVersion threePeople() {
        TableSnapshot empty = storage.create(dir.resolve("people").toString(), PEOPLE).block();
        return storage.commitStaged(storage.stageAppend(empty, people(0, 3), Map.of()).block()).block();
    }

    @Test
    void aCommitNamesTheFragmentItAddedAndItsRows() {
        CommittedVersion committed = threePeople();
        assertThat(committed.newestFragment()).hasValueSatisfying(fragment -> {
            assertThat(fragment.physicalRows()).isEqualTo(3);
            assertThat(fragment.address(2)).isEqualTo(((long) fragment.id() << 32) | 2);
        });
    }

    @Test
    void addressesAtTheExactSnapshotAreTrustedWithoutAScan() {
        CommittedVersion base = threePeople();
        TableSnapshot at = base.snapshot().orElseThrow();
        long addressOfP2 = base.newestFragment().orElseThrow().address(2);
        // "p1 lives at p2's address": only a caller's address, never a scan, would delete p2 here.
        CommittedVersion after = storage.commitStaged(storage.stageUpsertAt(at, Map.of("p1", addressOfP2),
                List.of(person("p1", 100)), "id", Map.of()).block()).block();
        assertThat(after.isExactly(new TransactionIdentity(at.version(), after.transaction().uuid()))).isTrue();
        assertThat(ages(at.ref())).containsExactly("p0=0", "p1=1", "p1=100");
    }

    @Test
    void aSnapshotThatIsNotExactlyTheDatasetFallsBackToTheKeyScan() {
        CommittedVersion base = threePeople();
        TableSnapshot at = base.snapshot().orElseThrow();
        long addressOfP2 = base.newestFragment().orElseThrow().address(2);
        // Same version number, another recorded time: a branch deleted and created again looks like this.
        TableSnapshot elsewhen = new TableSnapshot(at.ref(), at.version(), at.schema(), at.rowCount(),
                at.fragmentCount(), at.versionTime().plusNanos(1));
        storage.commitStaged(storage.stageUpsertAt(elsewhen, Map.of("p1", addressOfP2),
                List.of(person("p1", 100)), "id", Map.of()).block()).block();
        assertThat(ages(at.ref())).containsExactly("p0=0", "p1=100", "p2=2");
    }

    @Test
    void anAddressOutsideEveryFragmentFallsBackToTheKeyScan() {
        CommittedVersion base = threePeople();
        TableSnapshot at = base.snapshot().orElseThrow();
        long pastTheEnd = base.newestFragment().orElseThrow().address(3);
        storage.commitStaged(storage.stageUpsertAt(at, Map.of("p1", pastTheEnd),
                List.of(person("p1", 100), person("p9", 9)), "id", Map.of()).block()).block();
        assertThat(ages(at.ref())).containsExactly("p0=0", "p1=100", "p2=2", "p9=9");
    }
}
