package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.cleanup.CleanupOptions;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Time travel across index maintenance: a history of loads (which build missing indexes), mutations (deletes and
 * updates the index segments must not resurrect), and optimizes (compaction plus delta segments and a vector
 * retrain), then cleanup keeping the last commits. Every kept commit answers key lookups, range filters, traversals
 * and a nearest search exactly as it did when it was the head.
 */
class IndexTimeTravelTest extends InitedGraphTestBase {
    static final String SCHEMA = """
            node Doc {
                slug: String @key
                title: String @index
                rank: I32? @index
                vec: Vector(4)? @index
            }
            edge Cites: Doc -> Doc
            """;
    static final String QUERIES = """
            query bySlug($s: String) { match { $d: Doc { slug: $s } } return { $d.slug, $d.title, $d.rank } }
            query byRank($r: I32) { match { $d: Doc  $d.rank = $r } return { $d.slug } order { $d.slug asc } }
            query cited($s: String) { match { $d: Doc { slug: $s }  $d cites $e } return { $e.slug } order { $e.slug asc } }
            query near($q: Vector(4)) { match { $d: Doc } return { $d.slug } order { nearest($d.vec, $q) } limit 5 }
            query retitle($s: String, $t: String) { update Doc set { title: $t } where slug = $s }
            query drop($s: String) { delete Doc where slug = $s }
            """;

    @Override
    String schema() {
        return SCHEMA;
    }

    void load(int from, int to) {
        Random random = new Random(from);
        List<String> lines = new ArrayList<>();
        for (int i = from; i < to; i++) {
            lines.add("{\"type\":\"Doc\",\"data\":{\"slug\":\"d" + i + "\",\"title\":\"title " + i + "\",\"rank\":" + (i % 7)
                    + ",\"vec\":[" + random.nextFloat() + "," + random.nextFloat() + "," + random.nextFloat() + ","
                    + random.nextFloat() + "]}}");
            if (i > from) {
                lines.add("{\"edge\":\"Cites\",\"from\":\"d" + i + "\",\"to\":\"d" + (i - 1) + "\"}");
            }
        }
        graph.load("main", LoadMode.APPEND, ndjson(lines.toArray(String[]::new)), LoadOptions.DEFAULT).block();
    }

    Map<String, List<List<Object>>> answers(ReadTarget target) {
        Map<String, List<List<Object>>> out = new LinkedHashMap<>();
        for (String slug : List.of("d3", "d150", "d299", "d310", "d333")) {
            out.put("bySlug " + slug, rows(target, "bySlug", Map.of("s", slug)));
            out.put("cited " + slug, rows(target, "cited", Map.of("s", slug)));
        }
        out.put("byRank", rows(target, "byRank", Map.of("r", 3)));
        out.put("near", rows(target, "near", Map.of("q", List.of(0.5, 0.5, 0.5, 0.5))));
        return out;
    }

    List<List<Object>> rows(ReadTarget target, String query, Map<String, Object> params) {
        return graph.query(target, QUERIES, query, params).block().rows().collectList().block();
    }

    String head() {
        return graph.commits("main").blockFirst().id();
    }

    @Test
    void everyKeptCommitAnswersAsItDidAfterOptimizeAndCleanup() {
        Map<String, Map<String, List<List<Object>>>> seen = new LinkedHashMap<>();
        load(0, 300); // the load trains the vector index and builds the others
        seen.put(head(), answers(ReadTarget.main()));
        load(300, 320);
        seen.put(head(), answers(ReadTarget.main()));
        graph.mutate("main", QUERIES, "retitle", Map.of("s", "d150", "t", "renamed"), WriteOptions.DEFAULT).block();
        seen.put(head(), answers(ReadTarget.main()));
        graph.mutate("main", QUERIES, "drop", Map.of("s", "d299"), WriteOptions.DEFAULT).block();
        seen.put(head(), answers(ReadTarget.main()));
        graph.optimize(Optional.empty()).block(); // delta segments for the appended rows
        seen.put(head(), answers(ReadTarget.main()));
        load(320, 400); // a fifth of the vectors uncovered: the next optimize retrains
        seen.put(head(), answers(ReadTarget.main()));
        graph.mutate("main", QUERIES, "drop", Map.of("s", "d310"), WriteOptions.DEFAULT).block();
        seen.put(head(), answers(ReadTarget.main()));
        graph.optimize(Optional.empty()).block();
        seen.put(head(), answers(ReadTarget.main()));

        List<String> history = graph.commits("main").map(GraphCommit::id).collectList().block();
        graph.cleanup(CleanupOptions.of(OptionalInt.of(5), Optional.empty(), true)).block();

        List<String> kept = history.subList(0, 5);
        int checked = 0;
        for (Map.Entry<String, Map<String, List<List<Object>>>> recorded : seen.entrySet()) {
            if (kept.contains(recorded.getKey())) {
                assertThat(answers(ReadTarget.commit(recorded.getKey()))).as("commit " + recorded.getKey())
                        .isEqualTo(recorded.getValue());
                checked++;
            }
        }
        assertThat(checked).as("kept commits compared").isGreaterThanOrEqualTo(4);
        assertThat(answers(ReadTarget.main())).isEqualTo(seen.get(history.get(0)));
        assertThat(seen.get(history.get(0)).get("bySlug d310")).isEmpty();
        assertThat(seen.get(history.get(0)).get("bySlug d150")).containsExactly(List.of("d150", "renamed", 150 % 7));
    }
}
