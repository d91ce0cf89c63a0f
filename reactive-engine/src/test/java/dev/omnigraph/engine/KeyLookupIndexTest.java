package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.storage.TableRef;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Key lookups (append key preflight, edge endpoint checks, keyed upserts, point reads, traversal frontiers) give
 * the same answers — rows, errors and their ids — on a graph whose key columns have BTREE indexes as on the same
 * graph without them. Lance picks the index for the {@code id IN (…)} / {@code src IN (…)} filters on its own;
 * the indexed graph lists the indexes, so the filters really ran against indexed tables.
 */
class KeyLookupIndexTest {
    static final String QUERIES = """
            query person($n: String) { match { $p: Person { name: $n } } return { $p.name, $p.age } }
            query friends($n: String) {
                match { $p: Person { name: $n }  $p knows $f } return { $f.name } order { $f.name asc }
            }
            query friendsOfFriends($n: String) {
                match { $p: Person { name: $n }  $p knows {2, 2} $f } return { $f.name } order { $f.name asc }
            }
            """;
    static final int PEOPLE = 600;

    @TempDir
    Path dir;
    StorageServices services;
    Omnigraph plain;
    Omnigraph indexed;

    @BeforeEach
    void init() {
        services = EngineFixture.services();
        plain = seeded(dir.resolve("plain"));
        indexed = seeded(dir.resolve("indexed"));
        indexed.ensureIndexes("main", Optional.empty()).block();
    }

    @AfterEach
    void close() {
        EngineFixture.close(services);
    }

    Omnigraph seeded(Path root) {
        Omnigraph graph = Omnigraph.init(services, root, EngineFixture.SOCIAL).block();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < PEOPLE; i++) lines.add(person("p" + i, i % 90));
        for (int i = 1; i < PEOPLE; i++) lines.add(knows("p" + i, "p" + (i * 7 % i)));
        graph.load("main", LoadMode.APPEND, ndjson(lines.toArray(String[]::new)), LoadOptions.DEFAULT).block();
        return graph;
    }

    static String person(String name, int age) {
        return "{\"type\":\"Person\",\"data\":{\"name\":\"" + name + "\",\"age\":" + age + "}}";
    }

    static String knows(String from, String to) {
        return "{\"edge\":\"Knows\",\"from\":\"" + from + "\",\"to\":\"" + to + "\"}";
    }

    /** The outcome of {@code op} on a graph: its value, or its error's class and message (edge ids masked). */
    static Object outcome(Omnigraph graph, Function<Omnigraph, Object> op) {
        try {
            return op.apply(graph);
        } catch (RuntimeException e) {
            // minted edge ids differ between the two graphs
            return e.getClass().getSimpleName() + ": " + e.getMessage().replaceAll("\\b[0-9A-Z]{26}\\b", "<edge id>");
        }
    }

    void same(Function<Omnigraph, Object> op) {
        assertThat(outcome(indexed, op)).isEqualTo(outcome(plain, op));
    }

    static List<List<Object>> rows(Omnigraph graph, String query, String name) {
        return graph.query(ReadTarget.main(), QUERIES, query, Map.of("n", name)).block().rows().collectList().block();
    }

    static Object load(Omnigraph graph, LoadMode mode, String... lines) {
        var outcome = graph.load("main", mode, ndjson(lines), LoadOptions.DEFAULT).block();
        return List.of(outcome.affectedNodes(), outcome.affectedEdges());
    }

    @Test
    void theIndexedGraphListsItsKeyIndexes() {
        TableInfo people = indexed.snapshot(ReadTarget.main()).block().table("node:Person").orElseThrow();
        TableInfo knows = indexed.snapshot(ReadTarget.main()).block().table("edge:Knows").orElseThrow();
        assertThat(services.tables().indexNames(ref(indexed, people), people.version()).block()).contains("og_btree_id");
        assertThat(services.tables().indexNames(ref(indexed, knows), knows.version()).block())
                .contains("og_btree_id", "og_btree_src", "og_btree_dst");
        TableInfo plainPeople = plain.snapshot(ReadTarget.main()).block().table("node:Person").orElseThrow();
        // The plain graph never ran ensure: its load built the key index itself (rows added to an unindexed table).
        assertThat(services.tables().indexNames(ref(plain, plainPeople), plainPeople.version()).block()).contains("og_btree_id");
    }

    @Test
    void pointReadsAndTraversalsAnswerTheSame() {
        for (String name : List.of("p0", "p1", "p77", "p599", "nobody")) {
            same(g -> rows(g, "person", name));
            same(g -> rows(g, "friends", name));
            same(g -> rows(g, "friendsOfFriends", name));
        }
        assertThat(rows(indexed, "person", "p77")).containsExactly(List.of("p77", 77));
    }

    @Test
    void loadValidationAndKeyedUpsertsAnswerTheSame() {
        // append preflight: ids already committed are a key conflict naming them
        same(g -> load(g, LoadMode.APPEND, person("p5", 1), person("new1", 1), person("p400", 1)));
        // edge endpoint checks: a missing endpoint is refused, present ones pass
        same(g -> load(g, LoadMode.APPEND, knows("p3", "ghost")));
        same(g -> load(g, LoadMode.APPEND, knows("p3", "p4"), knows("p10", "p300")));
        // keyed upsert: replaced rows and new rows
        same(g -> load(g, LoadMode.MERGE, person("p7", 70), person("p8", 80), person("fresh", 5)));
        for (String name : List.of("p7", "p8", "fresh", "p9")) {
            same(g -> rows(g, "person", name));
        }
        same(g -> rows(g, "friends", "p10"));
        assertThat(rows(indexed, "person", "p7")).containsExactly(List.of("p7", 70));
        assertThat(outcome(indexed, g -> load(g, LoadMode.APPEND, person("p5", 1)))).asString()
                .startsWith("KeyConflict").contains("p5");
    }

    static TableRef ref(Omnigraph graph, TableInfo table) {
        return new TableRef(graph.root().resolve(table.path()).toString(), table.lanceBranch());
    }
}
