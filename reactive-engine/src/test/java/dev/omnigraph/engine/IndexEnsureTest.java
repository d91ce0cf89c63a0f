package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.index.EnsureResult;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.storage.TableRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Indexes on real Lance datasets: a load builds every index kind its rows need (so ensure has nothing left), later
 * writes keep answers right, and ensure builds what a schema change added, on main and on a branch (first touch).
 */
class IndexEnsureTest extends InitedGraphTestBase {
    static final String SCHEMA = """
            node Doc {
                slug: String @key
                title: String @index
                kind: enum(a, b, c) @index
                rank: I32? @index
                live: Bool? @index
                vec: Vector(4)? @index
                born: I64?
            }
            edge Cites: Doc -> Doc {
                weight: I64? @index
            }
            """;
    static final String QUERIES = """
            query bySlug($s: String) { match { $d: Doc { slug: $s } } return { $d.slug, $d.title, $d.rank } }
            query byRank($r: I32) { match { $d: Doc  $d.rank = $r } return { $d.slug } order { $d.slug asc } }
            query cited($s: String) {
                match { $d: Doc { slug: $s }  $d cites $e }
                return { $e.slug } order { $e.slug asc }
            }
            query retitle($s: String, $t: String) { update Doc set { title: $t } where slug = $s }
            query drop($s: String) { delete Doc where slug = $s }
            query near($q: Vector(4)) { match { $d: Doc } return { $d.slug } order { nearest($d.vec, $q) } limit 5 }
            """;

    @Override
    String schema() {
        return SCHEMA;
    }

    @BeforeEach
    void seed() {
        load(0, 20);
    }

    @AfterEach
    void close() {
        assertThat(graph.gates().allIdle()).as("no gate left held").isTrue();
    }

    void load(int from, int to) {
        Random random = new Random(from);
        List<String> lines = new ArrayList<>();
        for (int i = from; i < to; i++) {
            lines.add("{\"type\":\"Doc\",\"data\":{\"slug\":\"d" + i + "\",\"title\":\"title " + i + "\",\"kind\":\""
                    + "abc".charAt(i % 3) + "\",\"rank\":" + (i % 7) + ",\"live\":" + (i % 2 == 0) + ",\"vec\":["
                    + random.nextFloat() + "," + random.nextFloat() + "," + random.nextFloat() + "," + random.nextFloat() + "]}}");
            if (i > from) {
                lines.add("{\"edge\":\"Cites\",\"from\":\"d" + i + "\",\"to\":\"d" + (i - 1) + "\",\"data\":{\"weight\":" + i + "}}");
            }
        }
        graph.load("main", LoadMode.APPEND, ndjson(lines.toArray(String[]::new)), LoadOptions.DEFAULT).block();
    }

    List<String> indexes(String branch, String tableKey) {
        TableInfo table = graph.snapshot(ReadTarget.branch(branch)).block().table(tableKey).orElseThrow();
        TableRef ref = new TableRef(graph.root().resolve(table.path()).toString(), table.lanceBranch());
        return services.tables().indexNames(ref, table.version()).block();
    }

    List<List<Object>> rows(String branch, String query, Map<String, Object> params) {
        return graph.query(ReadTarget.branch(branch), QUERIES, query, params).block().rows().collectList().block();
    }

    @Test
    void theLoadBuildsEveryKindTheSchemaImpliesSoEnsureRightAfterItPublishesNothing() {
        assertThat(indexes("main", "node:Doc")).containsExactlyInAnyOrder(
                "og_btree_id", "og_inverted_title", "og_btree_kind", "og_btree_rank", "og_btree_live");
        assertThat(indexes("main", "edge:Cites")).containsExactlyInAnyOrder(
                "og_btree_id", "og_btree_src", "og_btree_dst", "og_btree_weight");
        Map<String, Long> before = GraphTestSupport.versions(graph);
        EnsureResult ensured = graph.ensureIndexes("main", Optional.of("ops")).block();
        assertThat(ensured.noop()).isTrue();
        assertThat(ensured.commit()).isEmpty();
        assertThat(GraphTestSupport.versions(graph)).isEqualTo(before);
        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
    }

    List<String> partial(String tableKey) {
        TableInfo table = graph.snapshot(ReadTarget.main()).block().table(tableKey).orElseThrow();
        TableRef ref = new TableRef(graph.root().resolve(table.path()).toString(), table.lanceBranch());
        return services.tables().partialIndexes(ref, table.version()).block();
    }

    @Test
    void aBulkLoadIsFoldedIntoTheExistingIndexesButSmallWritesAreLeftToOptimize() {
        load(20, 1300); // 1,280 Doc rows and 1,279 Cites edges: at least INDEXED_WRITE_ROWS each
        assertThat(partial("node:Doc")).as("every index covers the bulk load").isEmpty();
        assertThat(partial("edge:Cites")).isEmpty();
        assertThat(rows("main", "bySlug", Map.of("s", "d1234"))).extracting(r -> r.get(0)).containsExactly("d1234");
        load(1300, 1305); // a small load: scanned until optimize folds it in
        assertThat(partial("node:Doc")).contains("og_btree_id");
        assertThat(graph.ensureIndexes("main", Optional.empty()).block().noop()).isTrue();
        graph.optimize(Optional.empty()).block();
        assertThat(partial("node:Doc")).as("scalar and text indexes get a delta; 5 new vectors are scanned")
                .containsExactly("og_vector_vec");
        assertThat(rows("main", "bySlug", Map.of("s", "d1303"))).extracting(r -> r.get(0)).containsExactly("d1303");
    }

    @Test
    void theLoadThatGivesAVectorColumnEnoughRowsTrainsItsIndex() {
        assertThat(indexes("main", "node:Doc")).doesNotContain("og_vector_vec");
        load(20, 300);
        assertThat(indexes("main", "node:Doc")).contains("og_vector_vec");
        assertThat(graph.ensureIndexes("main", Optional.empty()).block().noop()).isTrue();
        assertThat(rows("main", "near", Map.of("q", List.of(0.5, 0.5, 0.5, 0.5)))).hasSize(5);
    }

    @Test
    void aSchemaChangeThatAddsAnIndexIsBuiltByEnsureExactlyThatOneOnMainAndOnABranch() {
        graph.applySchema(SCHEMA.replace("born: I64?", "born: I64? @index"), false, Optional.empty()).block();
        graph.createBranch("dev", Optional.empty()).block();
        Map<String, Long> mainBefore = GraphTestSupport.versions(graph);
        EnsureResult onDev = graph.ensureIndexes("dev", Optional.empty()).block();
        assertThat(onDev.built()).isEqualTo(Map.of("node:Doc", List.of("og_btree_born")));
        assertThat(GraphTestSupport.versions(graph)).as("main is untouched").isEqualTo(mainBefore);
        assertThat(indexes("dev", "node:Doc")).contains("og_btree_born");
        assertThat(indexes("main", "node:Doc")).doesNotContain("og_btree_born");
        assertThat(graph.ensureIndexes("dev", Optional.empty()).block().noop()).isTrue();

        EnsureResult onMain = graph.ensureIndexes("main", Optional.empty()).block();
        assertThat(onMain.built()).isEqualTo(Map.of("node:Doc", List.of("og_btree_born")));
        assertThat(onMain.commit()).isPresent();
        assertThat(indexes("main", "node:Doc")).contains("og_btree_born", "og_btree_id");
        assertThat(graph.ensureIndexes("main", Optional.empty()).block().noop()).isTrue();
    }

    @Test
    void answersAreTheSameWithTheIndexAndAfterLaterWrites() {
        List<List<Object>> point = rows("main", "bySlug", Map.of("s", "d7"));
        List<List<Object>> byRank = rows("main", "byRank", Map.of("r", 3));
        List<List<Object>> cited = rows("main", "cited", Map.of("s", "d7"));
        graph.ensureIndexes("main", Optional.empty()).block();
        assertThat(rows("main", "bySlug", Map.of("s", "d7"))).isEqualTo(point).hasSize(1);
        assertThat(rows("main", "byRank", Map.of("r", 3))).isEqualTo(byRank).isNotEmpty();
        assertThat(rows("main", "cited", Map.of("s", "d7"))).isEqualTo(cited).containsExactly(List.of("d6"));

        load(20, 40); // appended after the build: unindexed fragments are still scanned
        assertThat(rows("main", "bySlug", Map.of("s", "d33"))).extracting(r -> r.get(0)).containsExactly("d33");
        assertThat(rows("main", "cited", Map.of("s", "d33"))).containsExactly(List.of("d32"));
        graph.mutate("main", QUERIES, "retitle", Map.of("s", "d7", "t", "new"), WriteOptions.DEFAULT).block();
        assertThat(rows("main", "bySlug", Map.of("s", "d7"))).containsExactly(List.of("d7", "new", 0));
        graph.mutate("main", QUERIES, "drop", Map.of("s", "d8"), WriteOptions.DEFAULT).block();
        assertThat(rows("main", "bySlug", Map.of("s", "d8"))).isEmpty();
        assertThat(rows("main", "byRank", Map.of("r", 1))).extracting(r -> r.get(0))
                .containsExactly("d1", "d15", "d22", "d29", "d36");
        assertThat(indexes("main", "node:Doc")).contains("og_btree_id");
        assertThat(graph.ensureIndexes("main", Optional.empty()).block().noop()).isTrue();
    }

    @Test
    void anOverwriteOrASchemaApplyAfterTheBuildKeepsAnswersRightAndEnsureCatchesUp() {
        graph.ensureIndexes("main", Optional.empty()).block();
        graph.load("main", LoadMode.OVERWRITE, ndjson(
                "{\"type\":\"Doc\",\"data\":{\"slug\":\"z1\",\"title\":\"zed\",\"kind\":\"a\",\"rank\":3}}",
                "{\"type\":\"Doc\",\"data\":{\"slug\":\"z2\",\"title\":\"zoe\",\"kind\":\"b\",\"rank\":3}}"),
                LoadOptions.DEFAULT.emptying(java.util.Set.of("Cites"))).block();
        assertThat(rows("main", "bySlug", Map.of("s", "z1"))).containsExactly(List.of("z1", "zed", 3));
        assertThat(rows("main", "bySlug", Map.of("s", "d1"))).isEmpty();
        assertThat(rows("main", "byRank", Map.of("r", 3))).extracting(r -> r.get(0)).containsExactly("z1", "z2");
        graph.ensureIndexes("main", Optional.empty()).block();
        assertThat(indexes("main", "node:Doc")).contains("og_btree_id", "og_btree_rank");

        // drop the indexed rank and live columns: the rewritten table is read and indexed again without them
        graph.applySchema(SCHEMA.replace("    rank: I32? @index\n", "").replace("    live: Bool? @index\n", ""),
                true, Optional.empty()).block();
        assertThat(graph.query(ReadTarget.main(), "query q($s: String) { match { $d: Doc { slug: $s } } return { $d.title } }",
                "q", Map.of("s", "z2")).block().rows().collectList().block()).containsExactly(List.of("zoe"));
        graph.ensureIndexes("main", Optional.empty()).block();
        assertThat(indexes("main", "node:Doc")).contains("og_btree_id").doesNotContain("og_btree_rank");
        assertThat(graph.ensureIndexes("main", Optional.empty()).block().noop()).isTrue();
    }
}
