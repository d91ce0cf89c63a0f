package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.lance.Dataset;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.CommitConflict;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.ValidationError;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/** Every staged primitive of the seam, on real Lance datasets in a temp directory. */
class LanceTableStorageTest extends LanceStorageTestBase {
    static final Schema PEOPLE = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Utf8()), null),
            Field.nullable("age", new ArrowType.Int(64, true)),
            Field.nullable("score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
            Field.nullable("born", new ArrowType.Date(DateUnit.DAY)),
            Field.nullable("seen", new ArrowType.Date(DateUnit.MILLISECOND)),
            Field.nullable("active", new ArrowType.Bool()),
            new Field("tags", FieldType.nullable(new ArrowType.List()),
                    List.of(Field.nullable("item", new ArrowType.Utf8()))),
            new Field("embedding", FieldType.nullable(new ArrowType.FixedSizeList(3)),
                    List.of(Field.nullable("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))))));

    static Map<String, Object> person(String id, long age) {
        Map<String, Object> row = new HashMap<>();
        row.put("id", id);
        row.put("age", age);
        return row;
    }

    static List<Map<String, Object>> people(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> person("p" + i, i)).collect(Collectors.toList());
    }

    TableSnapshot createPeople(String name) {
        return storage.create(dir.resolve(name).toString(), PEOPLE).block();
    }

    TableSnapshot latest(TableRef ref) {
        return storage.open(ref, OptionalLong.empty()).block();
    }

    List<Map<String, Object>> rows(TableSnapshot snapshot, ScanRequest request) {
        return storage.scan(snapshot, request).flatMapIterable(RowBatch::rows).collectList().block();
    }

    List<String> ids(TableSnapshot snapshot) {
        return rows(snapshot, ScanRequest.all().withColumns(List.of("id"))).stream()
                .map(row -> (String) row.get("id")).sorted().collect(Collectors.toList());
    }

    TableSnapshot appendCommitted(TableSnapshot snapshot, List<Map<String, Object>> rows) {
        StagedHandle handle = storage.stageAppend(snapshot, rows, Map.of()).block();
        storage.commitStaged(handle).block();
        return latest(snapshot.ref());
    }

    @Test
    void createGivesAnEmptyDatasetWithTheSchemaAndNoAutoCleanup() throws Exception {
        TableSnapshot created = createPeople("people");
        assertThat(created.rowCount()).isZero();
        assertThat(created.schema()).isEqualTo(PEOPLE);
        // Lance 7 creates a dataset without auto-cleanup, so no second (config) commit is needed.
        assertThat(created.version()).isEqualTo(1);
        try (RootAllocator allocator = new RootAllocator();
             Dataset dataset = Dataset.open(allocator, created.ref().path(), new org.lance.ReadOptions.Builder().build())) {
            assertThat(dataset.getConfig()).doesNotContainKeys("lance.auto_cleanup.interval", "lance.auto_cleanup.older_than");
        }
        assertThatThrownBy(() -> storage.create(created.ref().path(), PEOPLE).block())
                .isInstanceOf(dev.omnigraph.storage.error.StorageFault.class).hasMessageContaining("create");
    }

    @Test
    void stagedAppendIsInvisibleUntilCommittedAndThenExact() {
        TableSnapshot base = createPeople("people");
        StagedHandle handle = storage.stageAppend(base, people(0, 5), Map.of("omnigraph.op", "t1")).block();
        assertThat(handle.identity().readVersion()).isEqualTo(base.version());
        assertThat(handle.operation()).isEqualTo("Append");

        TableSnapshot before = latest(base.ref());
        assertThat(before.version()).isEqualTo(base.version());
        assertThat(before.rowCount()).isZero();

        CommittedVersion committed = storage.commitStaged(handle).block();
        assertThat(committed.isExactly(handle.identity())).isTrue();
        assertThat(committed.version()).isEqualTo(base.version() + 1);
        assertThat(committed.rowCount()).isEqualTo(5);
        assertThat(storage.transactionAt(base.ref(), committed.version()).block()).contains(handle.identity());
        assertThat(ids(latest(base.ref()))).containsExactly("p0", "p1", "p2", "p3", "p4");
    }

    @Test
    void valuesOfEveryTypeRoundTrip() {
        TableSnapshot base = createPeople("people");
        Map<String, Object> full = new HashMap<>();
        full.put("id", "x");
        full.put("age", 41L);
        full.put("score", 2.5d);
        full.put("born", LocalDate.of(1984, 2, 29));
        full.put("seen", Instant.ofEpochMilli(1_700_000_000_123L));
        full.put("active", true);
        full.put("tags", List.of("a", "b"));
        full.put("embedding", List.of(1.0f, 2.0f, 3.5f));
        Map<String, Object> sparse = person("y", 7);
        TableSnapshot after = appendCommitted(base, List.of(full, sparse));

        List<Map<String, Object>> read = rows(after, ScanRequest.where("id = 'x'"));
        assertThat(read).hasSize(1);
        assertThat(read.get(0)).containsAllEntriesOf(full);
        Map<String, Object> y = rows(after, ScanRequest.where("id = 'y'")).get(0);
        assertThat(y.get("tags")).isNull();
        assertThat(y.get("embedding")).isNull();
        assertThat(y.get("age")).isEqualTo(7L);
    }

    @Test
    void wrongValuesAreRefusedWithTheColumnNamedAndNothingIsStaged() {
        TableSnapshot base = createPeople("people");
        Map<String, Object> wrongType = person("a", 1);
        wrongType.put("age", "old");
        assertThatThrownBy(() -> storage.stageAppend(base, List.of(wrongType), Map.of()).block())
                .isInstanceOfSatisfying(ValidationError.class, e -> {
                    assertThat(e.property()).isEqualTo("age");
                    assertThat(e.entityId()).isEqualTo("a");
                });
        Map<String, Object> unknown = person("b", 1);
        unknown.put("agee", 1L);
        assertThatThrownBy(() -> storage.stageAppend(base, List.of(unknown), Map.of()).block())
                .isInstanceOf(ValidationError.class).hasMessageContaining("agee");
        Map<String, Object> nullId = person(null, 1);
        assertThatThrownBy(() -> storage.stageAppend(base, List.of(nullId), Map.of()).block())
                .isInstanceOf(ValidationError.class).hasMessageContaining("must not be null");
        Map<String, Object> shortVector = person("c", 1);
        shortVector.put("embedding", List.of(1.0f));
        assertThatThrownBy(() -> storage.stageAppend(base, List.of(shortVector), Map.of()).block())
                .isInstanceOf(ValidationError.class).hasMessageContaining("vector of 3");
        assertThatThrownBy(() -> storage.stageAppend(base, List.of(), Map.of()).block()).isInstanceOf(BadRequest.class);
        assertThat(latest(base.ref()).version()).isEqualTo(base.version());
    }

    @Test
    void staleConflictingDeletesFailTypedAndLandNothing() {
        TableSnapshot base = appendCommitted(createPeople("people"), people(0, 10));
        StagedHandle first = storage.stageDelete(base, "id = 'p1'", Map.of()).block().orElseThrow();
        StagedHandle second = storage.stageDelete(base, "id = 'p2'", Map.of()).block().orElseThrow();
        storage.commitStaged(first).block();
        long headAfterFirst = storage.head(base.ref()).block();

        assertThatThrownBy(() -> storage.commitStaged(second).block())
                .isInstanceOfSatisfying(CommitConflict.class, conflict -> {
                    assertThat(conflict.retryable()).isTrue();
                    assertThat(conflict.readVersion()).isEqualTo(base.version());
                });
        assertThat(storage.head(base.ref()).block()).isEqualTo(headAfterFirst);
        assertThat(ids(latest(base.ref()))).contains("p2").doesNotContain("p1");
        assertThatThrownBy(() -> storage.commitStaged(second).block())
                .isInstanceOf(BadRequest.class).hasMessageContaining("already committed");
    }

    @Test
    void anAppendStagedBeforeAnOverwriteLandedIsRefusedAsAConflictThatIsNotRetryable() {
        TableSnapshot base = appendCommitted(createPeople("people"), people(0, 2));
        StagedHandle overwrite = storage.stageOverwrite(base, people(5, 6), Map.of()).block();
        StagedHandle append = storage.stageAppend(base, people(2, 4), Map.of()).block();
        storage.commitStaged(overwrite).block();
        long headAfterOverwrite = storage.head(base.ref()).block();

        // Lance 7 says "Incompatible transaction" here (0.39 said "Commit conflict"): still a typed conflict.
        assertThatThrownBy(() -> storage.commitStaged(append).block())
                .isInstanceOfSatisfying(CommitConflict.class, conflict -> assertThat(conflict.retryable()).isFalse());
        assertThat(storage.head(base.ref()).block()).isEqualTo(headAfterOverwrite);
        assertThat(ids(latest(base.ref()))).containsExactly("p5");
    }

    @Test
    void staleAppendRebasesInsideLanceAndIsReportedAsNotExact() {
        TableSnapshot base = createPeople("people");
        StagedHandle a = storage.stageAppend(base, people(0, 2), Map.of()).block();
        StagedHandle b = storage.stageAppend(base, people(2, 4), Map.of()).block();
        assertThat(storage.commitStaged(a).block().isExactly(a.identity())).isTrue();
        CommittedVersion rebased = storage.commitStaged(b).block();
        assertThat(rebased.isExactly(b.identity())).isFalse();
        assertThat(rebased.version()).isEqualTo(base.version() + 2);
        assertThat(rebased.transaction().uuid()).isEqualTo(b.identity().uuid());
    }

    /**
     * A commit that lands at its read version + 1 reports the staged identity without reading the transaction back:
     * it must be exactly what Lance recorded, for every kind of staged operation, and the snapshot it reports must
     * be what opening that version reads.
     */
    @Test
    void anExactCommitReportsWhatLanceRecordedForEveryStagedKind() {
        TableSnapshot base = appendCommitted(createPeople("people"), people(0, 10));
        List<StagedHandle> handles = new ArrayList<>();
        TableSnapshot at = base;
        for (int kind = 0; kind < 5; kind++) {
            Map<String, String> properties = TransactionIdentity.withIntent(Map.of("k", "v" + kind), "01INTENT" + kind);
            StagedHandle handle = switch (kind) {
                case 0 -> storage.stageAppend(at, people(10, 12), properties).block();
                case 1 -> storage.stageUpsert(at, List.of(person("p1", 100), person("p30", 30)), "id", properties).block();
                case 2 -> storage.stageDelete(at, "id = 'p2'", properties).block().orElseThrow();
                case 3 -> storage.stageRestore(at.ref(), base.version()).block();
                default -> storage.stageOverwrite(at, people(0, 3), properties).block();
            };
            CommittedVersion committed = storage.commitStaged(handle).block();
            assertThat(committed.isExactly(handle.identity())).as(handle.operation()).isTrue();
            assertThat(storage.transactionAt(at.ref(), committed.version()).block()).as(handle.operation())
                    .contains(committed.transaction());
            TableSnapshot opened = latest(at.ref());
            assertThat(committed.snapshot()).as(handle.operation()).contains(opened);
            assertThat(committed.rowCount()).isEqualTo(opened.rowCount());
            handles.add(handle);
            at = opened;
        }
        assertThat(handles).extracting(StagedHandle::operation)
                .containsExactly("Append", "Update", "Delete", "Restore", "Overwrite");
    }

    @Test
    void stagedUpsertReplacesAndInsertsInOneVersion() {
        TableSnapshot base = appendCommitted(createPeople("people"), people(0, 10));
        List<Map<String, Object>> changes = List.of(person("p2", 2000), person("p7", 7000), person("p20", 20000));
        StagedHandle handle = storage.stageUpsert(base, changes, "id", Map.of()).block();
        assertThat(handle.operation()).isEqualTo("Update");
        CommittedVersion committed = storage.commitStaged(handle).block();
        assertThat(committed.version()).isEqualTo(base.version() + 1);
        assertThat(committed.isExactly(handle.identity())).isTrue();
        assertThat(committed.rowCount()).isEqualTo(11);

        TableSnapshot after = latest(base.ref());
        assertThat(storage.count(after, Optional.of("id = 'p2'")).block()).isEqualTo(1);
        assertThat(rows(after, ScanRequest.where("id IN ('p2', 'p7', 'p20')")).stream()
                .collect(Collectors.toMap(r -> r.get("id"), r -> r.get("age"))))
                .containsOnly(Map.entry("p2", 2000L), Map.entry("p7", 7000L), Map.entry("p20", 20000L));
        assertThat(storage.count(after, Optional.of("age < 10")).block()).isEqualTo(8);

        assertThatThrownBy(() -> storage.stageUpsert(after, List.of(person("p1", 1), person("p1", 2)), "id", Map.of()).block())
                .isInstanceOf(BadRequest.class).hasMessageContaining("appears twice");
    }

    @Test
    void stagedRowDeltaReplacesAndDeletesInOneVersion() {
        TableSnapshot base = appendCommitted(createPeople("people"), people(0, 10));
        StagedHandle handle = storage.stageRowDelta(base, List.of(person("p2", 2000), person("p20", 20000)),
                List.of("p3", "p4", "nobody"), "id", Map.of()).block().orElseThrow();
        assertThat(handle.operation()).isEqualTo("Update");
        CommittedVersion committed = storage.commitStaged(handle).block();
        assertThat(committed.version()).isEqualTo(base.version() + 1);
        assertThat(committed.rowCount()).isEqualTo(9);
        TableSnapshot after = latest(base.ref());
        assertThat(ids(after)).contains("p2", "p20").doesNotContain("p3", "p4");
        assertThat(storage.count(after, Optional.of("age = 2000")).block()).isEqualTo(1);

        // Deletes alone are an Update without new fragments; nothing to do stages nothing.
        CommittedVersion deleted = storage.commitStaged(storage.stageRowDelta(after, List.of(), List.of("p5"), "id",
                Map.of()).block().orElseThrow()).block();
        assertThat(deleted.rowCount()).isEqualTo(8);
        assertThat(storage.stageRowDelta(latest(base.ref()), List.of(), List.of("nobody"), "id", Map.of()).block()).isEmpty();
        assertThatThrownBy(() -> storage.stageRowDelta(latest(base.ref()), List.of(person("p6", 1)), List.of("p6"), "id",
                Map.of()).block()).isInstanceOf(BadRequest.class).hasMessageContaining("both written and deleted");
    }

    @Test
    void upsertOfAWholeFragmentRemovesIt() {
        TableSnapshot base = appendCommitted(createPeople("people"), people(0, 3));
        CommittedVersion committed = storage.commitStaged(
                storage.stageUpsert(base, people(0, 3), "id", Map.of()).block()).block();
        assertThat(committed.rowCount()).isEqualTo(3);
        assertThat(ids(latest(base.ref()))).containsExactly("p0", "p1", "p2");
    }

    @Test
    void deleteThatMatchesNothingStagesNothing() {
        TableSnapshot base = appendCommitted(createPeople("people"), people(0, 3));
        assertThat(storage.stageDelete(base, "id = 'nobody'", Map.of()).block()).isEmpty();
        assertThat(storage.head(base.ref()).block()).isEqualTo(base.version());

        StagedHandle all = storage.stageDelete(base, "age >= 0", Map.of()).block().orElseThrow();
        assertThat(all.operation()).isEqualTo("Delete");
        assertThat(storage.commitStaged(all).block().rowCount()).isZero();
    }

    @Test
    void overwriteReplacesTheImageAndEmptyOverwriteLeavesZeroFragments() {
        TableSnapshot base = appendCommitted(createPeople("people"), people(0, 5));
        CommittedVersion replaced = storage.commitStaged(storage.stageOverwrite(base, people(100, 102), Map.of()).block()).block();
        assertThat(replaced.rowCount()).isEqualTo(2);
        assertThat(ids(latest(base.ref()))).containsExactly("p100", "p101");

        CommittedVersion emptied = storage.commitStaged(storage.stageOverwrite(latest(base.ref()), List.of(), Map.of()).block()).block();
        assertThat(emptied.rowCount()).isZero();
        assertThat(emptied.version()).isEqualTo(replaced.version() + 1);
        TableSnapshot empty = latest(base.ref());
        assertThat(empty.schema()).isEqualTo(PEOPLE);
        try (RootAllocator allocator = new RootAllocator();
             Dataset dataset = Dataset.open(allocator, base.ref().path(), new org.lance.ReadOptions.Builder().build())) {
            assertThat(dataset.getFragments()).isEmpty();
            assertThat(dataset.getConfig()).doesNotContainKey("lance.auto_cleanup.interval");
        }
        assertThat(appendCommitted(empty, people(7, 8)).rowCount()).isEqualTo(1);
    }

    @Test
    void restoreCommitsTheOldImageAsANewVersion() {
        TableSnapshot one = appendCommitted(createPeople("people"), people(0, 2));
        TableSnapshot two = appendCommitted(one, people(2, 4));
        CommittedVersion restored = storage.restore(one.ref(), one.version()).block();
        assertThat(restored.version()).isEqualTo(two.version() + 1);
        assertThat(ids(latest(one.ref()))).containsExactly("p0", "p1");
        assertThat(storage.transactionAt(one.ref(), restored.version()).block()).contains(restored.transaction());
        assertThatThrownBy(() -> storage.restore(one.ref(), 999).block()).isInstanceOf(NotFound.class);
    }

    @Test
    void branchesForkWriteIndependentlyAndCarryTheirIdentity() {
        TableSnapshot main = appendCommitted(createPeople("people"), people(0, 3));
        String path = main.ref().path();
        LanceBranch feature = storage.createBranch(main.ref(), main.version(), "feature").block();
        assertThat(feature.name()).isEqualTo("feature");
        assertThat(feature.parentBranch()).isEmpty();
        assertThat(feature.parentVersion()).isEqualTo(main.version());
        assertThat(feature.createdAt()).isPositive();

        TableRef onFeature = TableRef.onBranch(path, "feature");
        TableSnapshot fork = latest(onFeature);
        assertThat(fork.version()).isEqualTo(main.version());
        assertThat(storage.transactionAt(onFeature, fork.version()).block()).isEmpty(); // Clone: never read
        TableSnapshot featureAfter = appendCommitted(fork, people(10, 12));
        assertThat(featureAfter.version()).isEqualTo(main.version() + 1);
        assertThat(ids(featureAfter)).containsExactly("p0", "p1", "p10", "p11", "p2");
        assertThat(ids(latest(main.ref()))).containsExactly("p0", "p1", "p2");
        assertThat(storage.head(main.ref()).block()).isEqualTo(main.version());

        LanceBranch nested = storage.createBranch(onFeature, featureAfter.version(), "nested").block();
        assertThat(nested.parentBranch()).contains("feature");
        assertThat(storage.listBranches(path).block()).extracting(LanceBranch::name).containsExactly("feature", "nested");
        // Prefix-clashing names are refused before Lance sees them (Lance deletes branch files by prefix).
        assertThatThrownBy(() -> storage.createBranch(main.ref(), main.version(), "feature2").block())
                .isInstanceOf(BadRequest.class).hasMessageContaining("prefixes");
        assertThatThrownBy(() -> storage.createBranch(main.ref(), main.version(), "nest").block())
                .isInstanceOf(BadRequest.class);
        assertThatThrownBy(() -> storage.createBranch(main.ref(), main.version(), "feature").block())
                .isInstanceOf(dev.omnigraph.storage.error.Conflict.class);

        storage.deleteBranch(path, "nested").block();
        assertThat(storage.listBranches(path).block()).extracting(LanceBranch::name).containsExactly("feature");
        assertThatThrownBy(() -> storage.deleteBranch(path, "nope").block()).isInstanceOf(NotFound.class);
        assertThatThrownBy(() -> storage.createBranch(main.ref(), main.version(), "../evil").block()).isInstanceOf(BadRequest.class);
    }

    @Test
    void filteredScansProjectionsLimitsAndCounts() {
        TableSnapshot base = createPeople("people");
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            Map<String, Object> row = person("p" + i, i);
            row.put("active", i % 2 == 0);
            row.put("tags", List.of("t" + (i % 3)));
            rows.add(row);
        }
        TableSnapshot full = appendCommitted(base, rows);
        assertThat(storage.count(full, Optional.empty()).block()).isEqualTo(1000);
        assertThat(storage.count(full, Optional.of("age >= 500 AND active")).block()).isEqualTo(250);
        assertThat(storage.count(full, Optional.of("array_has(tags, 't1')")).block()).isEqualTo(333);

        List<RowBatch> batches = storage.scan(full, ScanRequest.where("age < 300").withColumns(List.of("id", "age"))
                .withBatchSize(64)).collectList().block();
        assertThat(batches).allSatisfy(batch -> {
            assertThat(batch.columns()).containsExactly("id", "age");
            assertThat(batch.size()).isLessThanOrEqualTo(64);
        });
        assertThat(batches.stream().mapToInt(RowBatch::size).sum()).isEqualTo(300);
        assertThat(rows(full, ScanRequest.where("age > 10").withLimit(5))).hasSize(5);
        assertThat(rows(full, ScanRequest.where("id = 'p42'").includingRowAddress()).get(0)).containsKey("_rowaddr");

        // Time travel: the empty base version still reads empty.
        assertThat(storage.count(base, Optional.empty()).block()).isZero();
    }

    @Test
    void cancellingAScanReleasesItsArrowMemory() {
        TableSnapshot full = appendCommitted(createPeople("people"), people(0, 2000));
        StepVerifier.create(storage.scan(full, ScanRequest.all().withBatchSize(10)), 1)
                .expectNextCount(1)
                .thenCancel()
                .verify();
        // closeChecksForLeaks() fails if the cancelled scan left buffers behind; give the async close a moment.
        StepVerifier.create(storage.count(full, Optional.empty())).expectNext(2000L).verifyComplete();
        Flux.range(0, 50).flatMap(i -> storage.head(full.ref())).blockLast();
    }

    @Test
    void missingTablesAndVersionsAreNotFound() {
        assertThatThrownBy(() -> storage.open(TableRef.main(dir.resolve("absent").toString()), OptionalLong.empty()).block())
                .isInstanceOf(NotFound.class);
        TableSnapshot base = createPeople("people");
        assertThatThrownBy(() -> storage.open(base.ref(), OptionalLong.of(77)).block()).isInstanceOf(NotFound.class);
    }

    @Test
    void discardReleasesAHandleWithoutCommitting() {
        TableSnapshot base = createPeople("people");
        StagedHandle handle = storage.stageAppend(base, people(0, 1), Map.of()).block();
        storage.discard(handle).block();
        assertThat(storage.head(base.ref()).block()).isEqualTo(base.version());
        assertThatThrownBy(() -> storage.commitStaged(handle).block()).isInstanceOf(BadRequest.class);
    }

    @Test
    void versionsListInOrder() {
        TableSnapshot base = createPeople("people");
        TableSnapshot a = appendCommitted(base, people(0, 1));
        TableSnapshot b = appendCommitted(a, people(1, 2));
        List<Long> versions = List.of(base.version(), a.version(), b.version());
        assertThat(versions).isSortedAccordingTo(Comparator.naturalOrder()).doesNotHaveDuplicates();
    }

    @Test
    void aCompactionLeavesSettledFragmentsAloneAndMergesTheSmallOnes() {
        // Tiered: a fragment of at least TieredCompaction.FLOOR_ROWS rows (and a sixteenth of the table) is settled,
        // so a compaction rewrites what was appended since the last one, not the whole table.
        TableSnapshot at = createPeople("tiered");
        TableRef ref = at.ref();
        at = appendCommitted(at, people(0, (int) TieredCompaction.FLOOR_ROWS));
        for (int i = 0; i < 3; i++) at = appendCommitted(at, people(10_000 + i * 4, 10_004 + i * 4));
        at = appendCommitted(at, people(20_000, 20_001));
        assertThat(at.fragmentCount()).isEqualTo(5);
        Map<Integer, Long> settled = storage.liveRowsByFragment(at).block();
        assertThat(storage.compactionTasks(ref).block()).isEqualTo(1);

        long compacted = storage.compactFragments(ref).block().orElseThrow();

        TableSnapshot after = storage.open(ref, OptionalLong.of(compacted)).block();
        assertThat(after.rowCount()).isEqualTo(TieredCompaction.FLOOR_ROWS + 13);
        Map<Integer, Long> fragments = storage.liveRowsByFragment(after).block();
        assertThat(fragments).as("the settled fragment keeps its id; the four small ones become one").hasSize(2)
                .containsEntry(settled.keySet().iterator().next(), TieredCompaction.FLOOR_ROWS);
        assertThat(storage.count(after, Optional.of("id = 'p0'")).block()).isEqualTo(1);
        assertThat(storage.compactFragments(ref).block()).as("nothing small is left to merge").isEmpty();
        assertThat(storage.compactionTasks(ref).block()).isZero();
    }

    @Test
    void aCompactionWritesNoFragmentAboveTheCeiling() {
        // A fragment is what a diff of a one-row change reads the live row ids of: its size is bounded.
        TableSnapshot at = createPeople("ceiling");
        // 20 fragments of 8,000 rows, each under the settled size of a 160,000-row table: all of them merge.
        int rows = 160_000;
        for (int from = 0; from < rows; from += 8_000) at = appendCommitted(at, people(from, from + 8_000));

        long compacted = storage.compactFragments(at.ref()).block().orElseThrow();

        TableSnapshot after = storage.open(at.ref(), OptionalLong.of(compacted)).block();
        assertThat(after.rowCount()).isEqualTo(rows);
        assertThat(storage.liveRowsByFragment(after).block().values()).as("rows per fragment")
                .hasSizeLessThan(20).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(TieredCompaction.CEILING_ROWS));
        assertThat(TieredCompaction.settledRows(10_000_000L)).isEqualTo(TieredCompaction.CEILING_ROWS);
    }

    @Test
    void compactionIsPlannedThenLandsReserveVersionsAndARewriteThatHistoryNamesAsMaintenance() {
        TableSnapshot created = createPeople("compacted");
        TableRef ref = created.ref();
        TableSnapshot at = created;
        for (int i = 0; i < 3; i++) {
            StagedHandle staged = storage.stageAppend(at, people(i * 10, i * 10 + 10), Map.of()).block();
            at = storage.open(ref, OptionalLong.of(storage.commitStaged(staged).block().version())).block();
        }
        long before = at.version();
        int tasks = storage.compactionTasks(ref).block();
        assertThat(tasks).isPositive();

        long after = storage.compactFragments(ref).block().orElseThrow();

        assertThat(after).isEqualTo(before + tasks + 1);
        List<String> operations = storage.operationsBetween(ref, before - 1, after).block();
        assertThat(operations.get(0)).isEqualTo("Append");
        assertThat(operations.subList(1, operations.size())).allMatch(TableHistory::isMaintenance);
        assertThat(operations.get(operations.size() - 1)).isEqualTo("Rewrite");
        assertThat(storage.compactionTasks(ref).block()).isZero();
        assertThat(storage.open(ref, OptionalLong.empty()).block().fragmentCount()).isEqualTo(1);
        assertThat(storage.open(ref, OptionalLong.of(before)).block().rowCount()).isEqualTo(30);
    }
}
