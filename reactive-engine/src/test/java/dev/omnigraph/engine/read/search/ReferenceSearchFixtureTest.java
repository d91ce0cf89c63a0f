package dev.omnigraph.engine.read.search;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.storage.StorageCallCounter;
import dev.omnigraph.storage.StorageCallCounter.Call;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reference's search fixture (five documents, {@code title} and {@code body} indexed) and the answers its tests
 * fix for {@code bm25}, {@code search}, {@code fuzzy} and {@code match_text}, asserted the same before the indexes
 * exist (the exact path) and after {@code index ensure} (Lance's inverted index). Two reference answers are not
 * ours, by design (see the user guide): its {@code match_text} is a token match, ours a phrase; and its
 * {@code fuzzy} finds nothing for a capitalised typo, ours finds the words within the edits.
 */
class ReferenceSearchFixtureTest {
    static final String SCHEMA = """
            node Doc {
                slug: String @key
                title: String @index
                body: String @index
                embedding: Vector(4)
            }
            """;
    static final List<String> DATA = List.of(
            doc("ml-intro", "Introduction to Machine Learning",
                    "Machine learning is a subset of artificial intelligence that focuses on algorithms", "0.1, 0.2, 0.3, 0.4"),
            doc("dl-basics", "Deep Learning Basics",
                    "Deep learning uses neural networks with many layers to learn representations", "0.5, 0.6, 0.7, 0.8"),
            doc("nlp-guide", "Natural Language Processing Guide",
                    "NLP applies machine learning to understand and generate human language", "0.2, 0.3, 0.4, 0.5"),
            doc("cv-overview", "Computer Vision Overview",
                    "Computer vision enables machines to interpret visual information from images", "0.8, 0.7, 0.6, 0.5"),
            doc("rl-intro", "Reinforcement Learning Introduction",
                    "Reinforcement learning trains agents through reward and punishment signals", "0.3, 0.4, 0.5, 0.6"));
    static final String QUERIES = """
            query text_search($q: String) { match { $d: Doc  search($d.title, $q) } return { $d.slug, $d.title } }
            query fuzzy_search($q: String) { match { $d: Doc  fuzzy($d.title, $q, 2) } return { $d.slug, $d.title } }
            query phrase_search($q: String) { match { $d: Doc  match_text($d.body, $q) } return { $d.slug, $d.title } }
            query bm25_search($q: String) {
                match { $d: Doc }
                return { $d.slug, $d.title }
                order { bm25($d.title, $q) }
                limit 3
            }
            query bm25_two($q: String) { match { $d: Doc } return { $d.slug } order { bm25($d.title, $q) } limit 2 }
            query insert_doc($slug: String, $title: String, $body: String, $e: Vector(4)) {
                insert Doc { slug: $slug, title: $title, body: $body, embedding: $e }
            }
            """;

    static String doc(String slug, String title, String body, String embedding) {
        return "{\"type\":\"Doc\",\"data\":{\"slug\":\"" + slug + "\",\"title\":\"" + title + "\",\"body\":\"" + body
                + "\",\"embedding\":[" + embedding + "]}}";
    }

    @TempDir
    Path dir;
    final StorageCallCounter counter = new StorageCallCounter();
    StorageServices services;
    Omnigraph graph;

    @BeforeEach
    void open() {
        services = SearchFixture.countingServices(counter);
        graph = SearchFixture.graph(services, dir.resolve("g"), SCHEMA, DATA);
    }

    @AfterEach
    void close() {
        services.tables().close();
    }

    List<Object> slugs(String query, String q) {
        return graph.query(ReadTarget.main(), QUERIES, query, Map.of("q", q)).block().rows()
                .map(r -> r.get(0)).collectList().block();
    }

    void assertReferenceAnswers() {
        assertThat(slugs("bm25_search", "Learning")).containsExactly("rl-intro", "ml-intro", "dl-basics");
        assertThat(slugs("bm25_search", "learning")).containsExactly("rl-intro", "ml-intro", "dl-basics");
        // Three titles tie: the two kept are the same however the index orders them.
        assertThat(slugs("bm25_two", "learning")).containsExactly("rl-intro", "ml-intro");
        assertThat(slugs("text_search", "Learning")).containsExactlyInAnyOrder("ml-intro", "dl-basics", "rl-intro");
        assertThat(slugs("text_search", "xyznonexistent")).isEmpty();
        assertThat(slugs("phrase_search", "neural networks")).containsExactly("dl-basics");
        assertThat(slugs("phrase_search", "neural")).containsExactly("dl-basics");
        // Ours, not the reference's (see the class comment).
        assertThat(slugs("phrase_search", "networks layers")).isEmpty();
        assertThat(slugs("fuzzy_search", "Introductio")).containsExactlyInAnyOrder("ml-intro", "rl-intro");
    }

    @Test
    void theExactPathAnswersAsTheReference() {
        // The fixture's load builds its inverted indexes; the same data under a schema without @index has none.
        graph = SearchFixture.graph(services, dir.resolve("plain"), SCHEMA.replace(" @index", ""), DATA);
        long answeredBefore = counter.get(Call.FULL_TEXT_ROWS);
        assertReferenceAnswers();
        assertThat(counter.get(Call.FULL_TEXT_ROWS)).as("no index: nothing answered by one").isEqualTo(answeredBefore);
    }

    @Test
    void theInvertedIndexAnswersAsTheReferenceAndSeesRowsWrittenAfterItsBuild() {
        graph.ensureIndexes("main", Optional.empty()).block();
        long scannedBefore = counter.get(Call.SCAN_ROWS);
        long askedBefore = counter.get(Call.FULL_TEXT);
        assertThat(slugs("bm25_search", "Learning")).containsExactly("rl-intro", "ml-intro", "dl-basics");
        assertThat(counter.get(Call.FULL_TEXT)).as("answered by the index").isGreaterThan(askedBefore);
        askedBefore = counter.get(Call.FULL_TEXT);
        assertThat(slugs("bm25_two", "learning")).containsExactly("rl-intro", "ml-intro");
        assertThat(counter.get(Call.FULL_TEXT) - askedBefore).as("asked for 3, then wider past the tie").isEqualTo(2);
        assertThat(counter.get(Call.SCAN_ROWS)).as("only the two kept rows, read by key").isEqualTo(scannedBefore + 2);
        long rowsBefore = counter.get(Call.FULL_TEXT_ROWS);
        scannedBefore = counter.get(Call.SCAN_ROWS);
        assertReferenceAnswers();
        // Text clauses pre-selected by the index scan nothing; the two rows bm25_two keeps after widening past its
        // tie with ids only are read by key.
        assertThat(counter.get(Call.SCAN_ROWS)).isEqualTo(scannedBefore + 2);
        assertThat(counter.get(Call.FULL_TEXT_ROWS)).isGreaterThan(rowsBefore);

        graph.mutate("main", QUERIES, "insert_doc", Map.of("slug", "quasar-notes", "title", "Quasar Notes",
                "body", "Quasar observations and telescope notes", "e", List.of(0.9, 0.1, 0.1, 0.1)), WriteOptions.DEFAULT).block();
        assertThat(slugs("text_search", "Quasar")).containsExactly("quasar-notes");
        assertThat(slugs("bm25_search", "quasar notes")).containsExactly("quasar-notes", "rl-intro", "nlp-guide");
    }
}
