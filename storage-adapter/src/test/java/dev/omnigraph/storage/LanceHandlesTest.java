package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.testing.StorageFixture;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Scans of pinned main-ref versions reuse kept dataset handles ({@link LanceHandles}): the rows are those a fresh
 * open gives, version by version, through appends and deletes; a version GC closes the handles of the versions it
 * deletes; the number kept stays at its capacity; the storage's close closes the rest (its leak check passes).
 */
class LanceHandlesTest extends LanceStorageTestBase {
    @Test
    void keptHandlesAnswerLikeFreshOpensAndAreClosedByVersionGcAndCapacity() {
        String path = dir.resolve("people").toString();
        TableRef ref = TableRef.main(path);
        storage.create(path, LanceTableStorageTest.PEOPLE).block();
        Random random = new Random(11);
        List<TableSnapshot> versions = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            TableSnapshot at = storage.open(ref, OptionalLong.empty()).block();
            storage.commitStaged(storage.stageAppend(at, LanceTableStorageTest.people(i * 50, i * 50 + 50), Map.of()).block()).block();
            if (i % 2 == 1) {
                TableSnapshot now = storage.open(ref, OptionalLong.empty()).block();
                storage.commitStaged(storage.stageDelete(now, "age < " + random.nextInt(i * 50), Map.of()).block().orElseThrow()).block();
            }
            versions.add(storage.open(ref, OptionalLong.empty()).block());
        }
        System.setProperty(LanceHandles.PROPERTY, "0"); // the reference: every scan opens its version afresh
        LanceTableStorage fresh;
        try {
            fresh = new LanceTableStorage(StorageFixture.scheduler());
        } finally {
            System.clearProperty(LanceHandles.PROPERTY);
        }
        try {
            for (int round = 0; round < 3; round++) {
                for (TableSnapshot v : versions) {
                    String where = "age >= " + random.nextInt(300);
                    assertThat(rows(storage, v, where)).as("v%s %s", v.version(), where).isEqualTo(rows(fresh, v, where));
                }
            }
            LanceHandles handles = storage.datasets().handles();
            assertThat(handles.size()).isEqualTo(versions.size());

            ObjectStore root = new LocalObjectStore(dir, StorageFixture.scheduler());
            VersionGcPlan plan = storage.planVersionGc(root, "people",
                    Map.of(Optional.empty(), VersionRetention.of(Set.of(), Long.MAX_VALUE)), Instant.EPOCH).block();
            storage.applyVersionGc(root, plan, VersionGcPlan.Phase.FILES).block();
            storage.applyVersionGc(root, plan, VersionGcPlan.Phase.MANIFESTS).block();
            assertThat(plan.manifests()).isNotEmpty();
            assertThat(handles.size()).as("handles of deleted versions closed")
                    .isEqualTo(versions.size() - (int) versions.stream()
                            .filter(v -> plan.manifests().stream().anyMatch(m -> m.version() == v.version())).count());
            TableSnapshot latest = versions.get(versions.size() - 1);
            assertThat(rows(storage, latest, "age >= 0")).isEqualTo(rows(fresh, latest, "age >= 0"));
        } finally {
            fresh.close();
        }

        LanceHandles small = new LanceHandles(storage.datasets(), 2);
        List<LanceHandles.Handle> held = new ArrayList<>();
        StorageFixture.scheduler().call(() -> {
            for (long v = 1; v <= 4; v++) small.release(small.acquire(ref, versions.get(versions.size() - 1).version()));
            held.add(small.acquire(ref, versions.get(versions.size() - 1).version()));
            return true;
        }).block();
        assertThat(small.size()).isLessThanOrEqualTo(2);
        StorageFixture.scheduler().call(() -> {
            held.forEach(small::release);
            small.closeAll();
            return true;
        }).block();
        assertThat(small.size()).isZero();
    }

    @Test
    void opensOfKeptVersionsAnswerLikeFreshOpensAndSeeCommitsOfOtherStorages() {
        String path = dir.resolve("heads").toString();
        TableRef ref = TableRef.main(path);
        storage.create(path, LanceTableStorageTest.PEOPLE).block();
        LanceTableStorage other = new LanceTableStorage(StorageFixture.scheduler()); // another process, in effect
        try {
            LanceHandles handles = storage.datasets().handles();
            for (int i = 0; i < 4; i++) {
                TableSnapshot head = other.open(ref, OptionalLong.empty()).block();
                other.commitStaged(other.stageAppend(head, LanceTableStorageTest.people(i * 10, i * 10 + 10), Map.of()).block()).block();
                TableSnapshot fresh = other.open(ref, OptionalLong.empty()).block();
                long before = handles.keptOpens();
                int keptBefore = handles.size();
                // The head moved past every kept version: opened (and, after the first, kept), never answered by
                // the kept older version.
                assertThat(storage.open(ref, OptionalLong.empty()).block()).isEqualTo(fresh);
                assertThat(handles.keptOpens()).isEqualTo(before);
                if (i == 0) {
                    assertThat(handles.size()).as("nothing of this dataset was kept: an ordinary open").isEqualTo(keptBefore);
                    rows(storage, fresh, "age >= 0"); // a scan keeps the head's handle
                } else {
                    assertThat(handles.size()).as("the moved head is kept").isEqualTo(keptBefore + 1);
                }
                assertThat(storage.open(ref, OptionalLong.empty()).block()).isEqualTo(fresh);
                assertThat(storage.open(ref, OptionalLong.of(fresh.version())).block()).isEqualTo(fresh);
                assertThat(handles.keptOpens()).as("both answered by the kept handle").isEqualTo(before + 2);
                assertThat(rows(storage, fresh, "age >= 0")).isEqualTo(rows(other, fresh, "age >= 0"));
            }
            TableSnapshot first = other.open(ref, OptionalLong.of(2)).block();
            assertThat(storage.open(ref, OptionalLong.of(2)).block()).isEqualTo(first);
        } finally {
            other.close();
        }
    }

    private static List<String> rows(LanceTableStorage tables, TableSnapshot v, String where) {
        return tables.scan(v, ScanRequest.where(where).withColumns(List.of("id", "age"))).flatMapIterable(RowBatch::rows)
                .map(r -> r.get("id") + "=" + r.get("age")).collectList().block().stream().sorted().toList();
    }
}
