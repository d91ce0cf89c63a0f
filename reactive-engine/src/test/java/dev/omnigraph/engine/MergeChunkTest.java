package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.merge.MergeOutcome;
import dev.omnigraph.engine.merge.MergeResult;
import dev.omnigraph.engine.write.WriteLimits;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TransactionMark;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Chunked merges: a type whose merge delta is above one transaction's bound (rows, or estimated bytes) commits as a
 * chain of exact chunks, each carrying its pre-minted mark, then ONE publish; past the chunk-count bound the merge
 * is a 413 before any effect. Small bounds keep most cases fast; one case crosses the real 8,192-row bound.
 */
class MergeChunkTest extends MergeFixture {
    private static final long BYTES = WriteLimits.DEFAULT.maxArrowBytesPerTable();

    @BeforeEach
    void seed() {
        load("main", LoadMode.APPEND, person("Ann", 1), person("Bea", 2), person("Cid", 3));
        branch("f");
        // f: 7 inserts, 2 updates, 1 delete of Person; main: an unrelated Person insert (a three-way merge).
        load("f", LoadMode.MERGE, person("Ann", 10), person("Cid", 30), person("Dan", 4), person("Eve", 5),
                person("Fay", 6), person("Gus", 7), person("Hal", 8), person("Ida", 9), person("Jon", 11));
        run("f", "drop", "Bea");
        load("main", LoadMode.APPEND, person("Kim", 12), "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}");
    }

    @Test
    void aDeltaAboveOneTransactionCommitsAsAChainOfChunksAndReadsBackExactly() {
        graph.withLimits(new WriteLimits(3, BYTES));
        long personBefore = GraphTestSupport.versions(graph).get("node:Person");
        String mainBefore = head("main");

        MergeResult merged = merge("f", "main");

        assertThat(merged.outcome()).isEqualTo(MergeOutcome.MERGED);
        assertThat(merged.affectedNodes()).isEqualTo(10);
        Map<String, Object> expected = new TreeMap<>(Map.of("Ann", 10, "Cid", 30, "Dan", 4, "Eve", 5, "Fay", 6,
                "Gus", 7, "Hal", 8, "Ida", 9, "Jon", 11, "Kim", 12));
        assertThat(column("main", "node:Person", "age")).isEqualTo(expected);
        // 10 entities in chunks of at most 3: four exact transactions, each read at the one before and marked
        // chunk 1..4 of one chain, and one publish.
        long personAfter = GraphTestSupport.versions(graph).get("node:Person");
        assertThat(personAfter).isEqualTo(personBefore + 4);
        List<Optional<TransactionMark>> marks = graph.services().tables()
                .transactionMarks(personRef("main"), personBefore, personAfter, Sidecar.Chain.PROPERTY).block();
        assertThat(marks).hasSize(4).allSatisfy(mark -> assertThat(mark).isPresent());
        String chain = marks.get(0).orElseThrow().mark().orElseThrow().split(":")[0];
        for (int i = 0; i < 4; i++) {
            TransactionMark mark = marks.get(i).orElseThrow();
            assertThat(mark.identity().readVersion()).isEqualTo(personBefore + i);
            assertThat(mark.mark()).contains(chain + ":" + (i + 1));
        }
        assertThat(parents(merged.commit().orElseThrow().id())).containsExactly(mainBefore, head("f"));
        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
        assertThat(merge("f", "main").outcome()).isEqualTo(MergeOutcome.ALREADY_UP_TO_DATE);
    }

    @Test
    void chunksAreBoundByEstimatedBytesToo() {
        graph.withLimits(new WriteLimits(WriteLimits.DEFAULT.maxEntitiesPerTable(), 40));
        long personBefore = GraphTestSupport.versions(graph).get("node:Person");

        merge("f", "main");

        assertThat(GraphTestSupport.versions(graph).get("node:Person")).isGreaterThan(personBefore + 1);
        assertThat(column("main", "node:Person", "age")).containsEntry("Ann", 10).containsEntry("Jon", 11)
                .doesNotContainKey("Bea").hasSize(10);
    }

    @Test
    void moreChunksThanTheBoundIsA413BeforeAnyEffect() {
        Map<String, Long> before = GraphTestSupport.versions(graph);
        // By rows: 10 entities need 4 chunks of 3.
        graph.withLimits(new WriteLimits(3, BYTES, 3));
        assertThatThrownBy(() -> merge("f", "main")).isInstanceOfSatisfying(ResourceLimitExceeded.class,
                refused -> assertThat(refused.getMessage()).contains("node:Person"));
        // By bytes: the entity bound allows the rows, their size needs more chunks than allowed.
        graph.withLimits(new WriteLimits(WriteLimits.DEFAULT.maxEntitiesPerTable(), 40, 2));
        assertThatThrownBy(() -> merge("f", "main")).isInstanceOfSatisfying(ResourceLimitExceeded.class,
                refused -> assertThat(refused.getMessage()).contains("chunks a merge commits to node:Person"));
        assertThat(GraphTestSupport.versions(graph)).isEqualTo(before);
        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
        assertThat(graph.recoveries().collectList().block()).isEmpty();
    }

    @Test
    void theRowsAMergeHoldsToWriteAreBoundedBeforeAnyEffect() {
        // Every chunk bound allows the delta; the memory the merge may hold for it does not (a wide-row branch
        // must be refused while it is read, not after gigabytes of rows were collected).
        Map<String, Long> before = GraphTestSupport.versions(graph);
        WriteLimits d = WriteLimits.DEFAULT;
        graph.withLimits(new WriteLimits(d.maxEntitiesPerTable(), d.maxArrowBytesPerTable(), d.maxChunksPerTable(), 100));
        assertThatThrownBy(() -> merge("f", "main")).isInstanceOfSatisfying(ResourceLimitExceeded.class,
                refused -> assertThat(refused.getMessage()).contains("rows a merge holds to write"));
        assertThat(GraphTestSupport.versions(graph)).isEqualTo(before);
        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
        graph.withLimits(d);
        assertThat(merge("f", "main").outcome()).isEqualTo(MergeOutcome.MERGED);
    }

    @Test
    void aFailureBetweenChunksCompensatesExactlyTheLandedPrefix() {
        graph.withLimits(new WriteLimits(3, BYTES));
        Map<String, Long> before = GraphTestSupport.versions(graph);
        Map<String, Object> ages = column("main", "node:Person", "age");
        String mainHead = head("main");
        graph.failpoints().arm("branch_merge.after_chunk:1.2", new Failpoints.Action.Error());

        assertThatThrownBy(() -> merge("f", "main")).isNotNull();

        graph.failpoints().disarm("branch_merge.after_chunk:1.2");
        // The only commit since is recovery's rollback of the restored pin, on top of the old head.
        assertThat(parents(head("main"))).containsExactly(mainHead);
        assertThat(column("main", "node:Person", "age")).isEqualTo(ages);
        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
        assertThat(graph.recoveries().collectList().block()).singleElement()
                .satisfies(record -> assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack));
        // Two chunks landed and one restore undid them: the pin moved past them to the restore.
        assertThat(GraphTestSupport.versions(graph).get("node:Person")).isEqualTo(before.get("node:Person") + 3);
        assertThat(merge("f", "main").outcome()).isEqualTo(MergeOutcome.MERGED);
        assertThat(column("main", "node:Person", "age")).containsEntry("Ann", 10).hasSize(10);
    }

    @Test
    void aTypeWithOnlyNewIdsIsAppendedWithoutLookingIdsUp() {
        branch("p");
        load("p", LoadMode.APPEND, person("Lea", 20), person("Max", 21), person("Ned", 22), person("Ola", 23),
                person("Pia", 24));
        load("main", LoadMode.MERGE, person("Ann", 40)); // main moves on: a three-way merge
        graph.withLimits(new WriteLimits(2, BYTES));
        long personBefore = GraphTestSupport.versions(graph).get("node:Person");

        merge("p", "main");

        long personAfter = GraphTestSupport.versions(graph).get("node:Person");
        assertThat(graph.services().tables().operationsBetween(personRef("main"), personBefore, personAfter).block())
                .containsExactly("Append", "Append", "Append");
        assertThat(column("main", "node:Person", "age")).containsEntry("Ann", 40).containsEntry("Lea", 20)
                .containsEntry("Pia", 24).hasSize(9);
    }

    @Test
    void aMergeAboveTheReal8192RowBoundSucceeds() {
        graph.withLimits(WriteLimits.DEFAULT);
        String[] first = IntStream.range(0, 4_200).mapToObj(i -> person("P" + letters(i), i % 150)).toArray(String[]::new);
        String[] second = IntStream.range(4_200, 8_400).mapToObj(i -> person("P" + letters(i), i % 150)).toArray(String[]::new);
        load("f", LoadMode.APPEND, first);
        load("f", LoadMode.APPEND, second);
        long personBefore = GraphTestSupport.versions(graph).get("node:Person");

        MergeResult merged = merge("f", "main");

        assertThat(merged.affectedNodes()).isEqualTo(8_410);
        assertThat(GraphTestSupport.versions(graph).get("node:Person")).isEqualTo(personBefore + 2);
        Map<String, Object> ages = column("main", "node:Person", "age");
        assertThat(ages).hasSize(8_410).containsEntry("Ann", 10).containsEntry("P" + letters(8_399), 8_399 % 150)
                .doesNotContainKey("Bea");
        assertThat(column("main", "node:Person", "age")).isEqualTo(column("f", "node:Person", "age")
                .entrySet().stream().collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue,
                        (a, b) -> a, () -> withKim())));
    }

    private static Map<String, Object> withKim() {
        Map<String, Object> out = new TreeMap<>();
        out.put("Kim", 12);
        return out;
    }

    /** Names must be letters only (the schema's @check). */
    private static String letters(int i) {
        StringBuilder out = new StringBuilder();
        do {
            out.append((char) ('a' + i % 26));
            i /= 26;
        } while (i > 0);
        return out.toString();
    }

    private TableRef personRef(String branch) {
        var table = graph.snapshot(ReadTarget.branch(branch)).block().table("node:Person").orElseThrow();
        return new TableRef(graph.root().resolve(table.path()).toString(), table.lanceBranch());
    }
}
