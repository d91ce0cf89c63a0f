package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.rows;
import static dev.omnigraph.engine.GraphTestSupport.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.OmnigraphException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * Filters handed to Lance, end to end on real datasets: column names keep their case, any number of pushed-down
 * conditions is answered without crashing the native parser, and text outside the Basic Multilingual Plane works
 * in keys, parameters, filters and commit ids.
 */
class FilterTextTest extends InitedGraphTestBase {
    static final String SCHEMA = """
            node Item {
                name: String @key
                tag: String?
                tAg: String?
                cityName: String?
                n: I32?
            }
            """;
    static final String QUERIES = """
            query add($name: String, $tag: String, $tAg: String, $city: String) {
                insert Item { name: $name, tag: $tag, tAg: $tAg, cityName: $city }
            }
            query byTAg($v: String) { match { $i: Item $i.tAg = $v } return { $i.name } }
            query byName($v: String) { match { $i: Item { name: $v } } return { $i.name, $i.n } }
            query byCity($v: String) { match { $i: Item $i.cityName = $v } return { $i.name } }
            query prefixed($v: String) { match { $i: Item $i.name starts_with $v } return { $i.name } }
            query deleteTAg($v: String) { delete Item where tAg = $v }
            query updateTAg($v: String) { update Item set { n: 7 } where tAg = $v }
            query updateCity($v: String) { update Item set { n: 9 } where cityName = $v }
            query deleteName($v: String) { delete Item where name = $v }
            query updateName($v: String, $n: I32) { update Item set { n: $n } where name = $v }
            """;

    @Override
    String schema() {
        return SCHEMA;
    }

    @BeforeEach
    void seed() {
        add("a", "x", "y", "Oslo");
        add("b", "y", "x", "Rome");
        add("c", "x", "x", "Oslo");
    }

    private void add(String name, String tag, String tAg, String city) {
        mutate("add", "name", name, "tag", tag, "tAg", tAg, "city", city);
    }

    private WriteOutcome mutate(String query, Object... keyValues) {
        return graph.mutate("main", QUERIES, query, params(keyValues), WriteOptions.DEFAULT).block(Duration.ofSeconds(60));
    }

    private List<List<Object>> read(String source, String query, Object... keyValues) {
        return graph.query(ReadTarget.main(), source, query, params(keyValues))
                .flatMapMany(QueryOutput::rows).collectList().block(Duration.ofSeconds(120));
    }

    private static Map<String, Object> params(Object... keyValues) {
        Map<String, Object> params = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) params.put((String) keyValues[i], keyValues[i + 1]);
        return params;
    }

    private List<Object> names() {
        return rows(graph, "node:Item").stream().map(row -> row.get("id")).toList();
    }

    @Test
    void deleteTouchesExactlyTheRowsTheSamePredicateReads() {
        List<List<Object>> read = read(QUERIES, "byTAg", "v", "x");
        assertThat(read).extracting(row -> row.get(0)).containsExactlyInAnyOrder("b", "c");
        WriteOutcome deleted = mutate("deleteTAg", "v", "x");
        assertThat(deleted.affectedNodes()).isEqualTo(2);
        assertThat(names()).containsExactly("a"); // "a" has tag = "x" but tAg = "y": untouched
    }

    @Test
    void updateTouchesExactlyTheRowsTheSamePredicateReads() {
        WriteOutcome updated = mutate("updateTAg", "v", "x");
        assertThat(updated.affectedNodes()).isEqualTo(2);
        Map<Object, Object> n = new HashMap<>();
        rows(graph, "node:Item").forEach(row -> n.put(row.get("id"), row.get("n")));
        assertThat(n).containsEntry("a", null).containsEntry("b", 7).containsEntry("c", 7);
    }

    @Test
    void aMixedCaseColumnIsFoundByMutationsAndReads() {
        assertThat(mutate("updateCity", "v", "Oslo").affectedNodes()).isEqualTo(2);
        assertThat(read(QUERIES, "byCity", "v", "Rome")).containsExactly(List.of("b"));
    }

    @Test
    void tenThousandPushedDownConditionsAreAnswered() {
        StringBuilder q = new StringBuilder("query many() { match { $i: Item ");
        for (int k = 0; k < 10_000; k++) q.append("$i.name != \"z").append(k).append("\" ");
        q.append("$i.tAg = \"x\" } return { $i.name } }");
        assertThat(read(q.toString(), "many")).extracting(row -> row.get(0)).containsExactlyInAnyOrder("b", "c");
    }

    @Test
    void supplementaryPlaneTextWorksEverywhere() {
        String emoji = "emoji \uD83D\uDE00";
        add(emoji, "t\uD83D\uDE80", "\uD83D\uDE00", "M\u00FCnchen \uD83C\uDF7A");
        assertThat(read(QUERIES, "byName", "v", emoji)).containsExactly(java.util.Arrays.asList(emoji, null));
        assertThat(read(QUERIES, "byTAg", "v", "\uD83D\uDE00")).containsExactly(List.of(emoji));
        assertThat(read(QUERIES, "byCity", "v", "M\u00FCnchen \uD83C\uDF7A")).containsExactly(List.of(emoji));
        assertThatThrownBy(() -> read(QUERIES, "prefixed", "v", "emoji \uD83D")).isInstanceOf(BadRequest.class);
        assertThat(read(QUERIES, "prefixed", "v", "emoji \uD83D\uDE00")).containsExactly(List.of(emoji));
        assertThat(mutate("updateName", "v", emoji, "n", 5).affectedNodes()).isEqualTo(1);
        assertThat(read(QUERIES, "byName", "v", emoji)).containsExactly(List.of(emoji, 5));

        String exported = String.join("\n", graph.export(ReadTarget.main(), Set.of()).collectList().block()) + "\n";
        assertThat(exported).contains(emoji);
        assertThat(mutate("deleteName", "v", emoji).affectedNodes()).isEqualTo(1);
        assertThat(names()).doesNotContain(emoji);
        graph.load("main", LoadMode.MERGE, Flux.just(ByteBuffer.wrap(exported.getBytes(StandardCharsets.UTF_8))),
                LoadOptions.DEFAULT).block(Duration.ofSeconds(60));
        assertThat(read(QUERIES, "byName", "v", emoji)).containsExactly(List.of(emoji, 5));

        assertThatThrownBy(() -> graph.commit("01J" + emoji).block()).isInstanceOf(NotFound.class);
    }

    @Test
    void nulAndLoneSurrogatesAreTypedRefusalsThatChangeNothing() {
        Map<String, Long> before = versions(graph);
        for (String bad : List.of("a\u0000b", "a\uD83Db", "\uDE00")) {
            assertThatThrownBy(() -> mutate("deleteTAg", "v", bad)).isInstanceOf(OmnigraphException.class)
                    .isNotInstanceOf(dev.omnigraph.storage.error.StorageFault.class);
            assertThatThrownBy(() -> read(QUERIES, "byTAg", "v", bad)).isInstanceOf(OmnigraphException.class)
                    .isNotInstanceOf(dev.omnigraph.storage.error.StorageFault.class);
            assertThatThrownBy(() -> graph.commit(bad).block()).isInstanceOf(BadRequest.class);
        }
        assertThat(versions(graph)).isEqualTo(before);
    }
}
