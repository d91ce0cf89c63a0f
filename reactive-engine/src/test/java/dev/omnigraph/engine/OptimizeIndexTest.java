package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.schema.IndexPlan;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.maintain.OptimizeResult;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.IndexSpec;
import dev.omnigraph.storage.TableRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Optimize leaves every index the schema implies present and covering every fragment (checked in the manifest's
 * index metadata), indexed queries answer the same, a failure between compaction and index builds is published
 * forward and the next optimize finishes the indexes; and optimize of a branch compacts its forked tables only.
 */
class OptimizeIndexTest extends InitedGraphTestBase {
    static final String QUERIES = IndexEnsureTest.QUERIES;
    static final List<Double> Q = List.of(0.5, 0.5, 0.5, 0.5);

    @Override
    String schema() {
        return IndexEnsureTest.SCHEMA;
    }

    @AfterEach
    void close() {
        assertThat(graph.gates().allIdle()).as("no gate left held").isTrue();
    }

    void load(String branch, int from, int to) {
        Random random = new Random(from);
        List<String> lines = new ArrayList<>();
        for (int i = from; i < to; i++) {
            lines.add("{\"type\":\"Doc\",\"data\":{\"slug\":\"d" + i + "\",\"title\":\"title " + i + "\",\"kind\":\""
                    + "abc".charAt(i % 3) + "\",\"rank\":" + (i % 7) + ",\"live\":" + (i % 2 == 0) + ",\"vec\":["
                    + random.nextFloat() + "," + random.nextFloat() + "," + random.nextFloat() + "," + random.nextFloat() + "]}}");
            if (i > 0) {
                lines.add("{\"edge\":\"Cites\",\"from\":\"d" + i + "\",\"to\":\"d" + (i - 1) + "\",\"data\":{\"weight\":" + i + "}}");
            }
        }
        graph.load(branch, LoadMode.APPEND, ndjson(lines.toArray(String[]::new)), LoadOptions.DEFAULT).block();
    }

    /** Single-doc loads: one new fragment per write on Doc and Cites, none of them indexed. */
    void trickle(String branch, int from, int to) {
        for (int i = from; i < to; i++) load(branch, i, i + 1);
    }

    TableRef ref(TableInfo table) {
        return new TableRef(graph.root().resolve(table.path()).toString(), table.lanceBranch());
    }

    TableInfo table(String branch, String key) {
        return graph.snapshot(ReadTarget.branch(branch)).block().table(key).orElseThrow();
    }

    Map<String, List<List<Object>>> answers(String branch) {
        Map<String, List<List<Object>>> out = new TreeMap<>();
        for (String slug : List.of("d5", "d301", "d305")) {
            out.put("bySlug " + slug, rows(branch, "bySlug", Map.of("s", slug)));
            out.put("cited " + slug, rows(branch, "cited", Map.of("s", slug)));
        }
        out.put("byRank", rows(branch, "byRank", Map.of("r", 3)));
        out.put("near", rows(branch, "near", Map.of("q", Q)));
        return out;
    }

    List<List<Object>> rows(String branch, String query, Map<String, Object> params) {
        return graph.query(ReadTarget.branch(branch), QUERIES, query, params).block().rows().collectList().block();
    }

    /** Every live table with rows has every implied index, each covering every fragment of the pinned version. */
    void assertFullyIndexed(String branch) {
        for (TableInfo table : graph.snapshot(ReadTarget.branch(branch)).block().tables()) {
            long rows = services.tables().open(ref(table), OptionalLong.of(table.version())).block().rowCount();
            List<String> required = IndexPlan.required(graph.catalog().table(table.tableKey()).orElseThrow(), rows)
                    .stream().map(IndexSpec::name).toList();
            assertThat(services.tables().indexNames(ref(table), table.version()).block()).as(table.tableKey())
                    .containsAll(required);
            assertThat(services.tables().partialIndexes(ref(table), table.version()).block()).as(table.tableKey())
                    .isEmpty();
        }
    }

    @Test
    void optimizeRebuildsPartialIndexesAndCreatesMissingOnesSoEveryIndexCoversTheCompactedData() {
        load("main", 0, 300);
        graph.ensureIndexes("main", Optional.empty()).block();
        load("main", 300, 390); // with the trickle, 96 of 396 rows unindexed: past the vector index's retraining share
        trickle("main", 390, 396);
        TableInfo doc = table("main", "node:Doc");
        assertThat(services.tables().partialIndexes(ref(doc), doc.version()).block())
                .contains("og_btree_id", "og_vector_vec");
        Map<String, List<List<Object>>> before = answers("main");
        assertThat(before.get("bySlug d305")).hasSize(1);

        OptimizeResult optimized = graph.optimize(Optional.empty()).block();

        assertThat(optimized.compactedTables()).contains("node:Doc", "edge:Cites");
        assertThat(optimized.indexed()).anySatisfy(table -> {
            assertThat(table.tableKey()).isEqualTo("node:Doc");
            assertThat(table.indexes()).contains("og_btree_id", "og_inverted_title", "og_vector_vec");
        });
        assertFullyIndexed("main");
        assertThat(answers("main")).isEqualTo(before);
        assertThat(graph.commits("main").blockFirst().operation()).isEqualTo("optimize");
        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
        // Compaction keeps fragments under different index segments apart (Lance remaps an index only over rewrite
        // groups one segment fully covers): the fragments stay as few as the segments, and nothing is left to do.
        int fragments = services.tables().open(ref(table("main", "node:Doc")), OptionalLong.empty()).block().fragmentCount();
        OptimizeResult again = graph.optimize(Optional.empty()).block();
        assertThat(again.indexed()).isEmpty();
        assertFullyIndexed("main");
        assertThat(answers("main")).isEqualTo(before);
        doc = table("main", "node:Doc");
        assertThat(services.tables().open(ref(doc), OptionalLong.of(doc.version())).block().fragmentCount())
                .isLessThanOrEqualTo(fragments).isLessThanOrEqualTo(3);
        assertThat(graph.optimize(Optional.empty()).block().commitId()).as("compact and fully indexed: nothing to do")
                .isEmpty();
    }

    @Test
    void scalarIndexesGetADeltaSegmentForFewNewRowsWhileAVectorIndexIsLeftToScanThem() {
        load("main", 0, 300);
        graph.ensureIndexes("main", Optional.empty()).block();
        trickle("main", 300, 306); // 6 of 306 rows unindexed: under the vector index's retraining share
        TableInfo doc = table("main", "node:Doc");
        List<String> indexes = services.tables().indexNames(ref(doc), doc.version()).block();
        Map<String, List<List<Object>>> before = answers("main");
        assertThat(before.get("bySlug d305")).hasSize(1);

        OptimizeResult optimized = graph.optimize(Optional.empty()).block();

        assertThat(optimized.compactedTables()).contains("node:Doc", "edge:Cites");
        assertThat(optimized.indexed()).anySatisfy(table -> {
            assertThat(table.tableKey()).isEqualTo("node:Doc");
            assertThat(table.indexes()).as("a delta segment each; no retraining for 2% of the rows")
                    .contains("og_btree_id", "og_inverted_title").doesNotContain("og_vector_vec");
        });
        doc = table("main", "node:Doc");
        assertThat(services.tables().open(ref(doc), OptionalLong.of(doc.version())).block().fragmentCount())
                .as("the six single-row fragments merged; the indexed fragment left as it was").isEqualTo(2);
        assertThat(services.tables().indexNames(ref(doc), doc.version()).block()).isEqualTo(indexes);
        assertThat(services.tables().partialIndexes(ref(doc), doc.version()).block()).containsExactly("og_vector_vec");
        assertThat(answers("main")).as("uncovered fragments are scanned: the same exact answers").isEqualTo(before);
        assertThat(graph.optimize(Optional.empty()).block().commitId()).as("nothing left to do").isEmpty();
    }

    @Test
    void aFailureBetweenCompactionAndTheIndexBuildsPublishesTheCompactionAndTheNextOptimizeIndexes() {
        load("main", 0, 10);
        graph.ensureIndexes("main", Optional.empty()).block();
        trickle("main", 10, 14);
        Map<String, List<List<Object>>> before = answers("main");
        graph.failpoints().arm("optimize.after_compact:1", new Failpoints.Action.Error());
        assertThatThrownBy(() -> graph.optimize(Optional.empty()).block()).hasMessageContaining("optimize.after_compact:1");
        graph.failpoints().disarm("optimize.after_compact:1");
        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
        assertThat(graph.recoveries().collectList().block()).singleElement()
                .satisfies(record -> assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledForward));
        assertThat(answers("main")).isEqualTo(before);

        // Stopped after the first index build this time: the build is published forward too (no fragment moved).
        graph.failpoints().arm("optimize.after_index:1", new Failpoints.Action.Error());
        assertThatThrownBy(() -> graph.optimize(Optional.empty()).block()).hasMessageContaining("optimize.after_index:1");
        graph.failpoints().disarm("optimize.after_index:1");
        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
        assertThat(graph.recoveries().collectList().block()).hasSize(2)
                .allSatisfy(record -> assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledForward));
        assertThat(answers("main")).isEqualTo(before);

        graph.optimize(Optional.empty()).block();
        assertFullyIndexed("main");
        assertThat(answers("main")).isEqualTo(before);
    }

    @Test
    void optimizeOfABranchCompactsItsForkedTablesOnlyAndLeavesMainAndOtherBranchesAlone() {
        load("main", 0, 10);
        graph.createBranch("dev", Optional.empty()).block();
        graph.createBranch("other", Optional.empty()).block();
        trickle("dev", 10, 16); // Doc and Cites forked on dev, one fragment per write
        trickle("main", 10, 13);
        Map<String, Long> mainPins = GraphTestSupport.versions(graph);
        String mainHead = graph.commits("main").blockFirst().id();
        String otherHead = graph.commits("other").blockFirst().id();
        Map<String, List<List<Object>>> onDev = answers("dev");
        Map<String, List<List<Object>>> onMain = answers("main");
        int devFragments = services.tables().open(ref(table("dev", "node:Doc")), OptionalLong.empty()).block().fragmentCount();

        OptimizeResult optimized = graph.optimize("dev", Optional.empty()).block();

        assertThat(optimized.compactedTables()).containsExactlyInAnyOrder("node:Doc", "edge:Cites");
        TableInfo doc = table("dev", "node:Doc");
        assertThat(doc.lanceBranch()).contains("dev");
        assertThat(services.tables().open(ref(doc), OptionalLong.of(doc.version())).block().fragmentCount())
                .isLessThan(devFragments).isLessThanOrEqualTo(2);
        assertFullyIndexed("dev");
        assertThat(answers("dev")).isEqualTo(onDev);
        assertThat(graph.commits("dev").blockFirst().operation()).isEqualTo("optimize");
        assertThat(GraphTestSupport.versions(graph)).as("main's pins").isEqualTo(mainPins);
        assertThat(graph.commits("main").blockFirst().id()).isEqualTo(mainHead);
        assertThat(graph.commits("other").blockFirst().id()).isEqualTo(otherHead);
        assertThat(answers("main")).isEqualTo(onMain);

        // Main's optimize leaves dev's forks where dev's optimize put them.
        long devDoc = doc.version();
        graph.optimize(Optional.empty()).block();
        assertThat(table("dev", "node:Doc").version()).isEqualTo(devDoc);
        assertThat(answers("dev")).isEqualTo(onDev);
        assertThat(graph.optimize("dev", Optional.empty()).block().commitId()).isEmpty();
    }
}
