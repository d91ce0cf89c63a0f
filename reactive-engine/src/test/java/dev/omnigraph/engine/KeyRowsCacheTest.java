package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.cleanup.CleanupOptions;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.read.KeyRowsCache;
import dev.omnigraph.storage.KeyRowIndex;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keyed reads taken by row id ({@link KeyRowsCache}) answer exactly what the indexed scans answer: point reads (held
 * and absent keys, a key sharing another's fingerprint, extra filters) and the node fetches of traversals, through
 * appends (an extended index), deletes and updates (rebuilt), branch writes, schema apply and time travel; a cleanup
 * drops the versions it reclaims; the cap holds. Every table is indexed here ({@code minRows(0)}).
 */
class KeyRowsCacheTest {
    static final Duration WAIT = Duration.ofSeconds(120);
    static final long ON = 64L << 20;
    static final String SCHEMA = """
            node Person {
                name: String @key
                age: I32?
            }
            edge Knows: Person -> Person
            """;
    static final String WRITES = """
            query drop($n: String) { delete Person where name = $n }
            query older($n: String) { update Person set { age: 99 } where name = $n }
            """;
    static final String READS = """
            query named($n: String) { match { $p: Person { name: $n } } return { $p.name, $p.age } }
            query namedOld($n: String) { match { $p: Person { name: $n }  $p.age > 30 } return { $p.name } }
            query out($n: String) { match { $p: Person { name: $n }  $p knows $f } return { $f.name, $f.age } }
            query outOld($n: String) { match { $p: Person { name: $n }  $p knows $f  $f.age > 30 } return { $f.name } }
            query two($n: String) { match { $p: Person { name: $n }  $p knows {2, 2} $f } return { $f.name } }
            """;
    static final List<String> QUERIES = List.of("named", "namedOld", "out", "outOld", "two");

    @TempDir
    Path dir;
    StorageServices services;
    Omnigraph graph;
    Random random = new Random(11);
    int persons;
    /** The persons main holds (edges on any branch join these). */
    final List<String> onMain = new ArrayList<>();

    @BeforeEach
    void open() {
        KeyRowsCache.shared().capBytes(0); // empty: other tests' graphs share relative locations
        KeyRowsCache.shared().capBytes(ON);
        KeyRowsCache.shared().minRows(0);
        services = EngineFixture.services();
        graph = Omnigraph.at(dir.resolve("g")).services(services).init(SCHEMA).block(WAIT);
    }

    @AfterEach
    void close() {
        graph.close();
        EngineFixture.close(services);
        KeyRowsCache.shared().minRows(Long.getLong(KeyRowsCache.MIN_ROWS_PROPERTY, 100_000));
        KeyRowsCache.shared().capBytes(Long.getLong(KeyRowsCache.CAP_PROPERTY, 256L << 20));
    }

    @Test
    void takenAnswersEqualScannedOnesThroughWritesBranchesSchemaApplyAndTimeTravel() {
        addPersons(200);
        addEdges("main", 400);
        List<String> commits = new ArrayList<>();
        long hits = KeyRowsCache.shared().stats().hits();
        long extensions = KeyRowsCache.shared().stats().extensions();
        for (int round = 0; round < 6; round++) {
            compare(ReadTarget.main());
            commits.add(graph.commits("main").blockFirst(WAIT).id());
            switch (round) {
                case 0 -> addPersons(30); // an append: the held index is extended
                case 1 -> mutate("drop", onMain.remove(random.nextInt(onMain.size())));
                case 2 -> mutate("older", pick()); // an update: new row ids
                case 3 -> {
                    graph.branches().create("f").block(WAIT);
                    int first = persons;
                    addPersons("f", 10);
                    addEdges("f", 20);
                    compare(ReadTarget.branch("f"));
                    graph.branches().merge(BranchOperations.Merge.of("f", "main").deletingSource()).block(WAIT);
                    for (int i = first; i < first + 10; i++) onMain.add(name(i));
                }
                case 4 -> graph.schema().apply(SchemaOperations.Apply.of(SCHEMA.replace("age: I32?",
                        "age: I32?\n    email: String?"))).block(WAIT);
                default -> addEdges("main", 30);
            }
        }
        compare(ReadTarget.main());
        for (String commit : commits) compare(ReadTarget.commit(commit));
        assertThat(KeyRowsCache.shared().stats().hits()).as("rows were taken by row id").isGreaterThan(hits);
        assertThat(KeyRowsCache.shared().stats().extensions()).as("an append extended a held index")
                .isGreaterThan(extensions);
    }

    @Test
    void aKeySharingAnotherKeysFingerprintIsNotFoundThroughIt() {
        String[] pair = sharedFingerprint();
        load("main", List.of(person(pair[0], 40), person("other", 50)));
        warm(ReadTarget.main(), pair[0]);
        assertThat(KeyRowsCache.shared().stats().entries()).isEqualTo(1);
        assertThat(rows(ReadTarget.main(), "named", pair[0])).containsExactly(List.of(pair[0], 40));
        assertThat(rows(ReadTarget.main(), "named", pair[1])).as("the candidate's id is another key").isEmpty();
        assertThat(rows(ReadTarget.main(), "named", "nobody")).isEmpty();
    }

    @Test
    void aCleanupDropsTheIndexesOfTheVersionsItReclaimsAndTheCapHolds() {
        addPersons(100);
        TableInfo before = people();
        warm(ReadTarget.main(), name(3));
        assertThat(KeyRowsCache.shared().holds(before.path(), before.version())).isTrue();
        addPersons(5);
        graph.cleanup(CleanupOptions.of(OptionalInt.of(1), Optional.empty(), true)).block(WAIT);
        assertThat(KeyRowsCache.shared().holds(before.path(), before.version())).as("the reclaimed version's").isFalse();
        compare(ReadTarget.main());

        long one = KeyRowsCache.shared().stats().bytes();
        KeyRowsCache.shared().capBytes(one / 2); // nothing fits: keyed reads scan and answer the same
        compare(ReadTarget.main());
        KeyRowsCache.Stats stats = KeyRowsCache.shared().stats();
        assertThat(stats.entries()).isZero();
        assertThat(stats.bytes()).isLessThanOrEqualTo(stats.capBytes());
    }

    /** Every query from a few starts: taken after the index is built, then scanned. */
    private void compare(ReadTarget target) {
        // The newest person (rows an append added: an extended index must hold them) and one nobody holds.
        List<String> starts = new ArrayList<>(List.of("nobody", onMain.get(onMain.size() - 1)));
        for (int i = 0; i < 4; i++) starts.add(pick());
        for (String start : starts) {
            warm(target, start);
            Map<String, List<String>> taken = new HashMap<>();
            for (String q : QUERIES) taken.put(q, sorted(rows(target, q, start)));
            KeyRowsCache.shared().minRows(Long.MAX_VALUE); // no table is indexed: every keyed read scans
            for (String q : QUERIES)
                assertThat(taken.get(q)).as("%s from %s at %s", q, start, target).isEqualTo(sorted(rows(target, q, start)));
            KeyRowsCache.shared().minRows(0);
        }
    }

    /** A read that starts the index's build, then the wait for it. */
    private void warm(ReadTarget target, String start) {
        rows(target, "out", start);
        KeyRowsCache.shared().idle().block(WAIT);
    }

    /** Two keys with the same fingerprint, found by drawing keys until two share one. */
    private static String[] sharedFingerprint() {
        Map<Integer, String> seen = new HashMap<>();
        for (int i = 0; ; i++) {
            String key = "k" + i;
            String other = seen.putIfAbsent(KeyRowIndex.fingerprint(key), key);
            if (other != null) return new String[] {other, key};
        }
    }

    private List<List<Object>> rows(ReadTarget target, String query, String start) {
        return graph.query(target, READS, query, Map.of("n", start)).flatMap(o -> o.rows().collectList()).block(WAIT);
    }

    private static List<String> sorted(List<List<Object>> rows) {
        return rows.stream().map(Object::toString).sorted().toList();
    }

    private TableInfo people() {
        return graph.snapshot(ReadTarget.main()).block(WAIT).table("node:Person").orElseThrow();
    }

    private void addPersons(int n) {
        addPersons("main", n);
    }

    private void addPersons(String branch, int n) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < n; i++, persons++) {
            lines.add(person(name(persons), random.nextInt(60)));
            if (branch.equals("main")) onMain.add(name(persons));
        }
        load(branch, lines);
    }

    private void addEdges(String branch, int n) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < n; i++) lines.add("{\"edge\":\"Knows\",\"from\":\"" + pick() + "\",\"to\":\"" + pick() + "\"}");
        load(branch, lines);
    }

    private String pick() {
        return onMain.get(random.nextInt(onMain.size()));
    }

    private static String person(String name, int age) {
        return "{\"type\":\"Person\",\"data\":{\"name\":\"" + name + "\",\"age\":" + age + "}}";
    }

    private void load(String branch, List<String> lines) {
        graph.load(branch, LoadMode.APPEND, GraphTestSupport.ndjson(lines.toArray(String[]::new)), LoadOptions.DEFAULT)
                .block(WAIT);
    }

    private void mutate(String query, String name) {
        graph.mutate("main", WRITES, query, Map.of("n", name), WriteOptions.DEFAULT).block(WAIT);
    }

    private static String name(int i) {
        return "p" + i;
    }
}
