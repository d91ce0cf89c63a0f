package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Staged index work on a real Lance table: a build is written without a commit and lands as ONE CreateIndex
 * transaction at the read version + 1 (readable, carrying its properties); an append leaves the index partial until a
 * delta segment covers just the new fragments (the old segment is kept, so older versions share it); a compaction
 * keeps coverage; answers are the same through any number of segments; a vector index is retrained whole.
 */
class IndexCoverageTest extends LanceStorageTestBase {
    static final IndexSpec ID = new IndexSpec("og_btree_id", "id", IndexSpec.Kind.BTREE, 0);
    static final IndexSpec AGE = new IndexSpec("og_btree_age", "age", IndexSpec.Kind.BTREE, 0);
    static final IndexSpec EMBEDDING = new IndexSpec("og_vector_embedding", "embedding", IndexSpec.Kind.VECTOR, 4);

    static List<Map<String, Object>> rows(int from, int to) {
        Random random = new Random(from);
        return IntStream.range(from, to).mapToObj(i -> {
            Map<String, Object> row = LanceTableStorageTest.person("p" + i, i);
            row.put("embedding", List.of(random.nextFloat(), random.nextFloat(), random.nextFloat()));
            return row;
        }).collect(Collectors.toList());
    }

    long append(TableRef ref, int from, int to) {
        TableSnapshot base = storage.open(ref, OptionalLong.empty()).block();
        return storage.commitStaged(storage.stageAppend(base, rows(from, to), Map.of()).block()).block().version();
    }

    TableRef people() {
        return TableRef.main(storage.create(dir.resolve("people").toString(), LanceTableStorageTest.PEOPLE).block().ref().path());
    }

    CommittedVersion index(TableRef ref, List<IndexSpec> specs) {
        return index(ref, specs, SegmentMerge.DELTA);
    }

    CommittedVersion index(TableRef ref, List<IndexSpec> specs, SegmentMerge merge) {
        TableSnapshot latest = storage.open(ref, OptionalLong.empty()).block();
        StagedHandle staged = storage.stageIndexes(latest, specs, Map.of("omnigraph.writer", "test"), merge).block()
                .orElseThrow();
        assertThat(storage.head(ref).block()).as("staging commits nothing").isEqualTo(latest.version());
        CommittedVersion landed = storage.commitStaged(staged).block();
        assertThat(landed.isExactly(staged.identity())).isTrue();
        return landed;
    }

    List<String> indexNamesAt(TableRef ref, long version) {
        return storage.indexNames(ref, version).block();
    }

    long count(TableRef ref, long version, String filter) {
        return storage.count(storage.open(ref, OptionalLong.of(version)).block(), Optional.of(filter)).block();
    }

    @Test
    void severalIndexesLandAsOneReadableTransactionAtTheReadVersionPlusOne() {
        TableRef ref = people();
        append(ref, 0, 50);
        long before = append(ref, 50, 100);
        CommittedVersion landed = index(ref, List.of(ID, AGE));
        assertThat(landed.version()).isEqualTo(before + 1);
        assertThat(indexNamesAt(ref, landed.version())).containsExactly("og_btree_age", "og_btree_id");
        assertThat(storage.partialIndexes(ref, landed.version()).block()).isEmpty();
        assertThat(storage.indexWork(ref, landed.version(), List.of(ID, AGE)).block()).as("nothing left to do").isEmpty();
        assertThat(storage.stageIndexes(storage.open(ref, OptionalLong.empty()).block(), List.of(ID, AGE), Map.of()).block())
                .as("no transaction when nothing is needed").isEmpty();
        // Lance 7 hands an index build's transaction to Java: recovery identifies it like any staged write.
        assertThat(storage.transactionAt(ref, landed.version()).block()).contains(landed.transaction());
        assertThat(storage.operationsBetween(ref, before, landed.version()).block()).containsExactly("CreateIndex");
        assertThat(storage.transactionMarks(ref, before, landed.version(), "omnigraph.writer").block())
                .singleElement().satisfies(mark -> assertThat(mark.orElseThrow().mark()).contains("test"));
        assertThat(count(ref, landed.version(), "id = 'p70'")).isEqualTo(1);
    }

    @Test
    void anAppendIsFoldedInByADeltaSegmentThatLeavesTheFirstOneShared() {
        TableRef ref = people();
        append(ref, 0, 40);
        long indexed = index(ref, List.of(ID)).version();
        long appended = append(ref, 40, 60);
        assertThat(storage.partialIndexes(ref, appended).block()).containsExactly(ID.name());
        assertThat(storage.partialIndexes(ref, indexed).block()).as("an older version keeps its own coverage").isEmpty();
        assertThat(storage.indexWork(ref, appended, List.of(ID)).block()).containsExactly(ID);
        assertThat(count(ref, appended, "id IN ('p5', 'p45')")).as("unindexed rows are still found").isEqualTo(2);

        long delta = index(ref, List.of(ID)).version();
        assertThat(storage.partialIndexes(ref, delta).block()).isEmpty();
        assertThat(segmentsOf(ref, delta)).as("the first segment is kept; the delta covers the new fragment only")
                .hasSize(2).contains(segmentsOf(ref, indexed).get(0));
        assertThat(count(ref, delta, "id IN ('p5', 'p45', 'nope')")).isEqualTo(2);

        // Compaction keeps the coverage: no index work after it.
        append(ref, 60, 61);
        long compacted = storage.compactFragments(ref).block().orElse(storage.head(ref).block());
        long folded = storage.stageIndexes(storage.open(ref, OptionalLong.of(compacted)).block(), List.of(ID), Map.of()).block()
                .map(handle -> storage.commitStaged(handle).block().version()).orElse(compacted);
        assertThat(storage.partialIndexes(ref, folded).block()).isEmpty();
        assertThat(count(ref, folded, "id IN ('p5', 'p45', 'p60')")).isEqualTo(3);
        assertThat(storage.operationsBetween(ref, delta, folded).block())
                .allMatch(operation -> TableHistory.isMaintenance(operation) || operation.equals("Append")
                        || operation.equals("CreateIndex"));
    }

    @Test
    void aRunOfEqualAppendsMergesSmallSegmentsAndLeavesTheLargeOnesShared() {
        TableRef ref = people();
        append(ref, 0, 400);
        String first = segmentsOf(ref, index(ref, List.of(ID)).version()).get(0);
        List<String> before = List.of(first);
        long version = 0;
        for (int i = 0; i < 10; i++) {
            append(ref, 400 + 20 * i, 420 + 20 * i);
            version = index(ref, List.of(ID), SegmentMerge.TIERED).version();
            List<String> segments = segmentsOf(ref, version);
            assertThat(segments).as("after append %d", i).hasSizeLessThanOrEqualTo(LanceIndexes.MAX_SEGMENTS)
                    .contains(first);
            List<String> kept = before;
            assertThat(segments.stream().filter(segment -> !kept.contains(segment)))
                    .as("a catch-up writes one segment; the others are kept or merged into it").hasSize(1);
            before = segments;
        }
        assertThat(storage.partialIndexes(ref, version).block()).isEmpty();
        assertThat(count(ref, version, "id IN ('p3', 'p410', 'p555', 'p599', 'p600')")).isEqualTo(4);
    }

    @Test
    void maintenanceAddsPlainDeltasAndRebuildsWholeAtTheCap() {
        TableRef ref = people();
        append(ref, 0, 400);
        String first = segmentsOf(ref, index(ref, List.of(ID)).version()).get(0);
        for (int i = 0; i < 3; i++) {
            append(ref, 400 + 20 * i, 420 + 20 * i);
            assertThat(segmentsOf(ref, index(ref, List.of(ID)).version())).as("a delta each").hasSize(i + 2).contains(first);
        }
        append(ref, 460, 480);
        long rebuilt = index(ref, List.of(ID)).version();
        assertThat(segmentsOf(ref, rebuilt)).as("one segment over the whole table").hasSize(1).doesNotContain(first);
        assertThat(count(ref, rebuilt, "id IN ('p3', 'p410', 'p479', 'p480')")).isEqualTo(3);
    }

    @Test
    void aDeltaTakesInTheSegmentsNoLargerThanItselfSmallestFirstAndKeepsTheCap() {
        // Sizes stand for segments: the rule only reads their row counts.
        assertThat(LanceIndexes.absorbed(List.of(1000L, 10L), Long::longValue, 10)).containsExactly(10L);
        assertThat(LanceIndexes.absorbed(List.of(1000L, 20L, 10L), Long::longValue, 10)).as("10 + 10 then takes 20")
                .containsExactly(10L, 20L);
        assertThat(LanceIndexes.absorbed(List.of(1000L, 500L), Long::longValue, 10)).isEmpty();
        assertThat(LanceIndexes.absorbed(List.of(1000L, 500L, 300L, 200L), Long::longValue, 10))
                .as("four segments already: the smallest is taken to stay at the cap").containsExactly(200L);
        assertThat(LanceIndexes.absorbed(List.of(), Long::longValue, 10)).isEmpty();
    }

    @Test
    void aVectorIndexIsTrainedStagedAndRetrainedWholeOnceAFifthOfTheRowsIsNew() {
        TableRef ref = people();
        append(ref, 0, 200);
        long indexed = index(ref, List.of(EMBEDDING)).version();
        assertThat(indexNamesAt(ref, indexed)).containsExactly(EMBEDDING.name());
        long few = append(ref, 200, 230);
        assertThat(storage.indexWork(ref, few, List.of(EMBEDDING)).block()).as("30 of 230 rows: left to a flat scan")
                .isEmpty();
        long many = append(ref, 230, 300);
        assertThat(storage.indexWork(ref, many, List.of(EMBEDDING)).block()).containsExactly(EMBEDDING);
        long retrained = index(ref, List.of(EMBEDDING)).version();
        assertThat(storage.partialIndexes(ref, retrained).block()).isEmpty();
        assertThat(segmentsOf(ref, retrained)).as("one segment replaces the old one").hasSize(1)
                .doesNotContainAnyElementsOf(segmentsOf(ref, indexed));
        List<Map<String, Object>> near = storage.nearest(storage.open(ref, OptionalLong.of(retrained)).block(),
                new NearestRequest("embedding", new float[] {0.5f, 0.5f, 0.5f}, 5, 4, List.of("id"))).block();
        assertThat(near).hasSize(5);
    }

    @Test
    void aTableWithoutFragmentsNeedsNoIndex() {
        TableRef ref = people();
        TableSnapshot empty = storage.open(ref, OptionalLong.empty()).block();
        assertThat(storage.indexWork(ref, empty.version(), List.of(ID)).block()).isEmpty();
        assertThat(storage.stageIndexes(empty, List.of(ID), Map.of()).block()).isEmpty();
    }

    /** The uuids of {@code version}'s index segments, read from Lance. */
    List<String> segmentsOf(TableRef ref, long version) {
        try (org.apache.arrow.memory.BufferAllocator allocator = new org.apache.arrow.memory.RootAllocator();
             org.lance.Dataset dataset = LanceDatasets.open(allocator, ref, OptionalLong.of(version))) {
            return dataset.getIndexes().stream().map(index -> index.uuid().toString()).sorted().toList();
        }
    }
}
