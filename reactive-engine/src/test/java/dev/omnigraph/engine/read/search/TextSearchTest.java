package dev.omnigraph.engine.read.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * search / fuzzy / match_text against answers worked out by hand, and bm25 against a reference computation written
 * here from the BM25 formula (its own tokenizer: split on anything but Unicode letters and numbers, lower case).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TextSearchTest {
    static final String SCHEMA = """
            node Doc {
                title: String @key
                body: String?
                rank: I32
            }
            """;
    static final Map<String, String> BODIES = new LinkedHashMap<>();

    static {
        BODIES.put("d1", "The quick brown fox");
        BODIES.put("d2", "Quick quick fox jumps over the lazy dog");
        BODIES.put("d3", "A lazy brown dog sleeps");
        BODIES.put("d4", "Foxes are quick; the FOX is quicker!");
        BODIES.put("d5", null);
        BODIES.put("d6", "Über café naïve 42 résumé");
    }

    @TempDir
    static Path dir;
    StorageServices services;
    Omnigraph graph;

    @BeforeAll
    void setUp() {
        services = SearchFixture.services();
        graph = SearchFixture.graph(services, dir.resolve("g"), SCHEMA, lines(BODIES, 0));
    }

    @AfterAll
    void tearDown() {
        services.tables().close();
    }

    static List<String> lines(Map<String, String> bodies, int rankBase) {
        List<String> out = new ArrayList<>();
        int i = rankBase;
        for (Map.Entry<String, String> e : bodies.entrySet()) {
            String body = e.getValue() == null ? "" : ",\"body\":\"" + e.getValue() + "\"";
            out.add("{\"type\":\"Doc\",\"data\":{\"title\":\"" + e.getKey() + "\",\"rank\":" + (i++) + body + "}}");
        }
        return out;
    }

    Set<Object> titles(String clause, Map<String, Object> params) {
        String decl = params.containsKey("q") ? "$q: String" : "";
        return new HashSet<>(SearchFixture.first(graph, "query q(" + decl + ") { match { $d: Doc " + clause
                + " } return { $d.title } }", params));
    }

    Set<Object> titles(String clause) {
        return titles(clause, Map.of());
    }

    @Test
    void searchNeedsEveryToken() {
        assertThat(titles("search($d.body, \"quick fox\")")).containsExactlyInAnyOrder("d1", "d2", "d4");
        assertThat(titles("search($d.body, \"Brown DOG\")")).containsExactlyInAnyOrder("d3");
        assertThat(titles("search($d.body, $q)", Map.of("q", "über 42"))).containsExactlyInAnyOrder("d6");
        assertThat(titles("search($d.body, \"fox\")")).containsExactlyInAnyOrder("d1", "d2", "d4"); // not "foxes" alone
        assertThat(titles("search($d.body, \"!!\")")).isEmpty(); // no tokens: nothing
        assertThat(titles("search($d.body, \"quick\") $d.rank > 1")).containsExactlyInAnyOrder("d4"); // d4 rank 3
    }

    @Test
    void matchTextNeedsConsecutiveTokens() {
        // d4 "…are quick; the FOX…": stop words are not tokens, so "quick" and "fox" are consecutive
        assertThat(titles("match_text($d.body, \"quick fox\")")).containsExactlyInAnyOrder("d2", "d4");
        assertThat(titles("match_text($d.body, \"lazy dog\")")).containsExactlyInAnyOrder("d2");
        assertThat(titles("match_text($d.body, \"brown fox\")")).containsExactlyInAnyOrder("d1");
        assertThat(titles("match_text($d.body, \"fox quick\")")).isEmpty();
    }

    @Test
    void fuzzyAllowsEdits() {
        // quik → quick is one insertion; auto distance for 4 code points is 1; quicker is 3 edits away
        assertThat(titles("fuzzy($d.body, \"quik\")")).containsExactlyInAnyOrder("d1", "d2", "d4");
        assertThat(titles("fuzzy($d.body, \"foxs\", 1)")).containsExactlyInAnyOrder("d1", "d2", "d4");
        assertThat(titles("fuzzy($d.body, \"foxs\", 0)")).isEmpty();
        assertThat(titles("fuzzy($d.body, \"cafe\")")).containsExactlyInAnyOrder("d6"); // é ≠ e: one substitution
        assertThat(titles("fuzzy($d.body, \"dgo\", 2)")).containsExactlyInAnyOrder("d2", "d3");
        assertThat(titles("fuzzy($d.body, \"ox\")")).isEmpty(); // two code points: exact only
    }

    @Test
    void negatedSearch() {
        assertThat(titles("not { search($d.body, \"fox\") }")).containsExactlyInAnyOrder("d3", "d5", "d6");
    }

    // ---- bm25 ------------------------------------------------------------------------------------------

    /** The reference: BM25 with k1 = 1.2, b = 0.75, idf = ln(1 + (N - df + 0.5)/(df + 0.5)) over non-null bodies. */
    static Map<String, Double> referenceBm25(Map<String, String> bodies, String query) {
        Map<String, List<String>> docs = new LinkedHashMap<>();
        bodies.forEach((k, v) -> {
            if (v != null) docs.put(k, tokens(v));
        });
        double avg = docs.values().stream().mapToInt(List::size).average().orElse(0);
        Map<String, Double> out = new LinkedHashMap<>();
        for (String k : bodies.keySet()) {
            List<String> d = docs.get(k);
            double score = 0;
            if (d != null) {
                for (String term : new HashSet<>(tokens(query))) {
                    long tf = d.stream().filter(term::equals).count();
                    long df = docs.values().stream().filter(x -> x.contains(term)).count();
                    double idf = Math.log(1 + (docs.size() - df + 0.5) / (df + 0.5));
                    score += idf * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * d.size() / avg));
                }
            }
            out.put(k, score);
        }
        return out;
    }

    static List<String> tokens(String s) {
        return Arrays.stream(s.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")).filter(t -> !t.isEmpty())
                .filter(t -> !Tokenizer.STOP_WORDS.contains(t)).toList();
    }

    static void assertBm25(Omnigraph graph, Map<String, String> corpus, String query) {
        Map<String, Double> expected = referenceBm25(corpus, query);
        List<List<Object>> rows = SearchFixture.query(graph, """
                query q($q: String) {
                    match { $d: Doc }
                    return { $d.title, bm25($d.body, $q) as score }
                    order { bm25($d.body, $q) }
                    limit 100
                }""", Map.of("q", query));
        assertThat(rows).hasSize(expected.size());
        for (List<Object> r : rows) assertThat((Double) r.get(1)).as((String) r.get(0)).isCloseTo(expected.get(r.get(0)), within(1e-9));
        List<Double> scores = rows.stream().map(r -> (Double) r.get(1)).toList();
        List<Double> sorted = new ArrayList<>(scores);
        sorted.sort((a, b) -> Double.compare(b, a));
        assertThat(scores).isEqualTo(sorted); // best first
    }

    @Test
    void bm25EqualsTheReferenceAndFollowsNewVersions() {
        Omnigraph own = SearchFixture.graph(services, dir.resolve("versions"), SCHEMA, lines(BODIES, 0));
        assertBm25(own, BODIES, "quick fox");
        assertBm25(own, BODIES, "lazy dog dog");
        assertThat(referenceBm25(BODIES, "quick fox").get("d2")).isGreaterThan(0.5); // the reference is not trivial
        // a new table version: N, df and avgdl change, and the statistics cached for the old version must not be used
        Map<String, String> more = new LinkedHashMap<>();
        more.put("d7", "fox fox fox");
        more.put("d8", "nothing here at all really");
        SearchFixture.load(own, lines(more, 10));
        Map<String, String> all = new LinkedHashMap<>(BODIES);
        all.putAll(more);
        assertBm25(own, all, "quick fox");
    }

    @Test
    void bm25WithASearchFilterRanksOnlyTheMatchesButOverTheWholeCorpus() {
        List<List<Object>> rows = SearchFixture.query(graph, """
                query q() {
                    match { $d: Doc  search($d.body, "lazy") }
                    return { $d.title, bm25($d.body, "lazy") as s }
                    order { s desc }
                }""", Map.of());
        Map<String, Double> expected = referenceBm25(BODIES, "lazy");
        assertThat(rows).extracting(r -> r.get(0)).containsExactlyInAnyOrder("d2", "d3");
        for (List<Object> r : rows) assertThat((Double) r.get(1)).isCloseTo(expected.get(r.get(0)), within(1e-9));
    }
}
