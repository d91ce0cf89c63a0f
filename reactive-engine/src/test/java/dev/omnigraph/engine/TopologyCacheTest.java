package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.cleanup.CleanupOptions;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.read.TopologyCache;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * The in-memory adjacency traversals walk ({@link TopologyCache}) gives exactly the answers the edge-table scans
 * give, on randomised graphs and queries, after writes, branch merges, time travel and a schema apply, and so do
 * kept dataset handles and heads answered from them: every answer is also read through a second, read-only handle
 * on a storage that keeps no handles, with the adjacency cache off (the reference without any cache); a cleanup
 * drops the entries of the versions it reclaims; the memory cap is enforced by eviction.
 */
class TopologyCacheTest {
    static final Duration WAIT = Duration.ofSeconds(120);
    static final long ON = 64L << 20;
    static final String SCHEMA = """
            node Person {
                name: String @key
                age: I32?
            }
            edge Knows: Person -> Person
            edge Likes: Person -> Person
            """;
    static final String WRITES = """
            query unknow($a: String) { delete Knows where from = $a }
            query drop($n: String) { delete Person where name = $n }
            """;
    static final String READS = """
            query out($n: String) { match { $p: Person { name: $n }  $p knows $f } return { $f.name } }
            query into($n: String) { match { $p: Person { name: $n }  $f knows $p } return { $f.name } }
            query both($n: String) { match { $p: Person { name: $n }  $p <knows> $f } return { $f.name } }
            query far($n: String) { match { $p: Person { name: $n }  $p knows {1, 3} $f } return { $f.name } }
            query two($n: String) { match { $p: Person { name: $n }  $p <knows> {2, 2} $f  $f.age > 20 } return { $f.name } }
            query pairs() { match { $a: Person  $a knows {2, 2} $b } return { $a.name, $b.name } }
            query named($n: String) { match { $p: Person { name: $n } } return { $p.name } }
            query liked($n: String) { match { $p: Person { name: $n }  $p likes $f } return { $f.name } }
            """;
    static final List<String> PER_START = List.of("out", "into", "both", "far", "two");

    @TempDir
    Path dir;
    StorageServices services;
    Omnigraph graph;
    /** The reference: a read-only handle on a storage that keeps no dataset handles (opened on first use). */
    StorageServices plainServices;
    Omnigraph plain;
    Random random = new Random(35);
    int persons;
    final java.util.Set<Integer> dropped = new java.util.HashSet<>();

    @BeforeEach
    void open() {
        TopologyCache.shared().capBytes(0); // empty: entries of other tests' graphs share relative locations
        TopologyCache.shared().capBytes(ON);
        services = EngineFixture.services();
        graph = Omnigraph.at(dir.resolve("g")).services(services).init(SCHEMA).block(WAIT);
    }

    @AfterEach
    void close() {
        if (plain != null) {
            plain.close();
            EngineFixture.close(plainServices);
        }
        graph.close();
        EngineFixture.close(services);
        TopologyCache.shared().capBytes(Long.getLong(TopologyCache.CAP_PROPERTY, 256L << 20));
    }

    @Test
    void answersAreTheSameWithAndWithoutTheCacheThroughWritesMergesTimeTravelAndSchemaApply() {
        addPersons(40);
        addEdges("main", "knows", 120);
        List<String> commits = new ArrayList<>();
        long hitsBefore = TopologyCache.shared().stats().hits();
        long extendedBefore = TopologyCache.shared().stats().extensions();
        for (int round = 0; round < 6; round++) {
            compare(ReadTarget.main(), 6);
            commits.add(graph.commits("main").blockFirst(WAIT).id());
            switch (round) {
                case 0 -> addEdges("main", "knows", 30);
                case 1 -> mutate("main", "unknow", Map.of("a", name(random.nextInt(persons))));
                case 2 -> { // a branch writes edges, main writes others, then the branch merges in
                    graph.branches().create("f").block(WAIT);
                    addEdges("f", "knows", 20);
                    compare(ReadTarget.branch("f"), 4);
                    addEdges("main", "knows", 10);
                    graph.branches().merge(BranchOperations.Merge.of("f", "main").deletingSource()).block(WAIT);
                }
                case 3 -> {
                    int gone = random.nextInt(persons);
                    dropped.add(gone);
                    mutate("main", "drop", Map.of("n", name(gone)));
                }
                case 4 -> {
                    String widened = SCHEMA.replace("age: I32?", "age: I32?\n    email: String?");
                    graph.schema().apply(SchemaOperations.Apply.of(widened)).block(WAIT);
                }
                default -> addPersons(5);
            }
        }
        compare(ReadTarget.main(), 6);
        for (String commit : commits) compare(ReadTarget.commit(commit), 3); // time travel to every older state
        assertThat(TopologyCache.shared().stats().hits()).as("the cached path answered").isGreaterThan(hitsBefore);
        assertThat(TopologyCache.shared().stats().extensions()).as("appends extended a cached version")
                .isGreaterThan(extendedBefore);
    }

    @Test
    void anAppendExtendsTheCachedVersionAndADeleteRebuilds() {
        addPersons(20);
        List<String> hub = new ArrayList<>();
        for (int i = 1; i < 12; i++) hub.add("{\"edge\":\"Knows\",\"from\":\"p0\",\"to\":\"" + name(i) + "\"}");
        load("main", hub);
        assertThat(rows(ReadTarget.main(), "out", Map.of("n", name(0)))).hasSize(11);
        long extensions = TopologyCache.shared().stats().extensions();
        addPersons(2); // a node table commit: the Knows version stays, and stays cached
        load("main", List.of("{\"edge\":\"Knows\",\"from\":\"p0\",\"to\":\"p15\"}",
                "{\"edge\":\"Knows\",\"from\":\"p21\",\"to\":\"p0\"}")); // p21: an id only the new rows hold
        assertThat(cachedThenScanned(ReadTarget.main(), "out", name(0))).isTrue();
        assertThat(cachedThenScanned(ReadTarget.main(), "into", name(0))).isTrue();
        assertThat(TopologyCache.shared().stats().extensions()).as("the append extended").isEqualTo(extensions + 1);
        assertThat(rows(ReadTarget.main(), "out", Map.of("n", name(0)))).hasSize(12);

        mutate("main", "unknow", Map.of("a", name(0))); // deletion vectors: not an append, built in full
        assertThat(cachedThenScanned(ReadTarget.main(), "out", name(0))).isTrue();
        assertThat(rows(ReadTarget.main(), "out", Map.of("n", name(0)))).isEmpty();
        assertThat(TopologyCache.shared().stats().extensions()).isEqualTo(extensions + 1);
        load("main", List.of("{\"edge\":\"Knows\",\"from\":\"p0\",\"to\":\"p3\"}"));
        assertThat(cachedThenScanned(ReadTarget.main(), "both", name(0))).isTrue();
        assertThat(rows(ReadTarget.main(), "out", Map.of("n", name(0)))).containsExactly(List.of("p3"));
    }

    @Test
    void aCleanupDropsTheEntriesOfTheVersionsItReclaims() {
        addPersons(20);
        addEdges("main", "knows", 40);
        TableInfo before = knows(ReadTarget.main());
        rows(ReadTarget.main(), "out", Map.of("n", name(0)));
        assertThat(TopologyCache.shared().holds(before.path(), before.version())).isTrue();
        addEdges("main", "knows", 5);
        graph.cleanup(CleanupOptions.of(OptionalInt.of(1), Optional.empty(), true)).block(WAIT);
        assertThat(TopologyCache.shared().holds(before.path(), before.version()))
                .as("the reclaimed version's adjacency").isFalse();
        compare(ReadTarget.main(), 4);
    }

    @Test
    void theMemoryCapEvictsTheLeastRecentlyUsedAndAnswersStayExact() {
        addPersons(30);
        addEdges("main", "knows", 60);
        addEdges("main", "likes", 60);
        rows(ReadTarget.main(), "out", Map.of("n", name(1)));
        long one = TopologyCache.shared().stats().bytes();
        assertThat(one).isPositive();
        TopologyCache.shared().capBytes(one + one / 2); // room for one of the two tables
        long evicted = TopologyCache.shared().stats().evictions();
        for (int i = 0; i < 4; i++) {
            String start = name(random.nextInt(persons));
            assertThat(cachedThenScanned(ReadTarget.main(), "liked", start)).isTrue();
            assertThat(cachedThenScanned(ReadTarget.main(), "out", start)).isTrue();
            TopologyCache.Stats s = TopologyCache.shared().stats();
            assertThat(s.bytes()).isLessThanOrEqualTo(s.capBytes());
            assertThat(s.entries()).isLessThanOrEqualTo(1);
        }
        assertThat(TopologyCache.shared().stats().evictions()).isGreaterThan(evicted);
        // A cap the row count passes but the built topology does not: built once, kept nowhere, not built again.
        TopologyCache.shared().capBytes(0);
        TopologyCache.shared().capBytes(one - 1);
        assertThat(60L * 64).as("the row-count check passes").isLessThanOrEqualTo(one - 1);
        long builds = TopologyCache.shared().stats().builds();
        List<List<Object>> first = rows(ReadTarget.main(), "out", Map.of("n", name(3)));
        assertThat(rows(ReadTarget.main(), "out", Map.of("n", name(3)))).isEqualTo(first);
        assertThat(TopologyCache.shared().stats().builds()).isEqualTo(builds + 1);
        assertThat(TopologyCache.shared().stats().entries()).isZero();
        TopologyCache.shared().capBytes(one / 2); // nothing fits: traversals scan and answer the same
        assertThat(cachedThenScanned(ReadTarget.main(), "out", name(2))).isTrue();
        assertThat(TopologyCache.shared().stats().entries()).isZero();
    }

    @Test
    void aGraphCreatedAgainAtTheSamePathIsNeverAnsweredFromTheEarlierGraphsCaches() throws Exception {
        // Same path, same tables, same versions and row counts: only the edges differ.
        load("main", List.of(person("a"), person("b"), person("c")));
        load("main", List.of(edge("a", "b")));
        assertThat(rows(ReadTarget.main(), "out", Map.of("n", "a"))).containsExactly(List.of("b"));
        graph.close();
        try (var files = java.nio.file.Files.walk(dir.resolve("g"))) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        graph = Omnigraph.at(dir.resolve("g")).services(services).init(SCHEMA).block(WAIT);
        load("main", List.of(person("a"), person("b"), person("c")));
        load("main", List.of(edge("a", "c")));

        assertThat(rows(ReadTarget.main(), "out", Map.of("n", "a"))).containsExactly(List.of("c"));
        assertThat(graph.query(ReadTarget.main(), READS, "named", Map.of("n", "c")).flatMap(o -> o.rows().collectList())
                .block(WAIT)).containsExactly(List.of("c"));
    }

    private static String person(String name) {
        return "{\"type\":\"Person\",\"data\":{\"name\":\"" + name + "\",\"age\":1}}";
    }

    private static String edge(String from, String to) {
        return "{\"edge\":\"Knows\",\"from\":\"" + from + "\",\"to\":\"" + to + "\"}";
    }

    /** Per-start queries from random starts, and the all-pairs 2-hop, answered with and without the cache. */
    private void compare(ReadTarget target, int starts) {
        for (int i = 0; i < starts; i++) {
            String start = name(random.nextInt(persons));
            for (String q : PER_START)
                assertThat(cachedThenScanned(target, q, start)).as("%s from %s at %s", q, start, target).isTrue();
        }
        TopologyCache.shared().capBytes(0);
        List<String> scanned = sorted(rows(target, "pairs", Map.of()));
        TopologyCache.shared().capBytes(ON);
        assertThat(sorted(rows(target, "pairs", Map.of()))).as("pairs at %s", target).isEqualTo(scanned);
    }

    private boolean cachedThenScanned(ReadTarget target, String query, String start) {
        long cap = TopologyCache.shared().stats().capBytes();
        List<String> cached = sorted(rows(target, query, Map.of("n", start)));
        TopologyCache.shared().capBytes(0);
        List<String> scanned = sorted(rows(target, query, Map.of("n", start)));
        List<String> reference = sorted(plain().query(target, READS, query, Map.of("n", start))
                .flatMap(o -> o.rows().collectList()).block(WAIT));
        TopologyCache.shared().capBytes(cap);
        assertThat(cached).as("%s from %s at %s", query, start, target).isEqualTo(scanned);
        assertThat(cached).as("%s from %s at %s, no kept handles", query, start, target).isEqualTo(reference);
        return true;
    }

    private Omnigraph plain() {
        if (plain == null) {
            System.setProperty("omnigraph.lance.keptHandles", "0");
            try {
                plainServices = EngineFixture.services();
            } finally {
                System.clearProperty("omnigraph.lance.keptHandles");
            }
            plain = Omnigraph.at(dir.resolve("g")).services(plainServices).open(OpenMode.READ_ONLY).block(WAIT);
        }
        return plain;
    }

    private List<List<Object>> rows(ReadTarget target, String query, Map<String, Object> params) {
        return graph.query(target, READS, query, params).flatMap(o -> o.rows().collectList()).block(WAIT);
    }

    private static List<String> sorted(List<List<Object>> rows) {
        return rows.stream().map(Object::toString).sorted().toList();
    }

    private TableInfo knows(ReadTarget target) {
        return graph.snapshot(target).block(WAIT).table("edge:Knows").orElseThrow();
    }

    /** {@code n} persons in one load (one commit). */
    private void addPersons(int n) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < n; i++, persons++) {
            lines.add("{\"type\":\"Person\",\"data\":{\"name\":\"" + name(persons) + "\",\"age\":" + random.nextInt(60) + "}}");
        }
        load("main", lines);
    }

    /** Edges with power-law sources (a few hubs), self-loops and repeats included. */
    private void addEdges(String branch, String query, int n) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            double u = random.nextDouble();
            int from = (int) (persons * u * u);
            int to = random.nextInt(10) == 0 ? from : random.nextInt(persons);
            if (dropped.contains(from) || dropped.contains(to)) continue;
            String type = query.equals("likes") ? "Likes" : "Knows";
            lines.add("{\"edge\":\"" + type + "\",\"from\":\"" + name(from) + "\",\"to\":\"" + name(to) + "\"}");
        }
        load(branch, lines); // one commit: the cache is rebuilt per edge version, not per edge
    }

    private void load(String branch, List<String> lines) {
        if (lines.isEmpty()) return;
        graph.load(branch, LoadMode.APPEND, GraphTestSupport.ndjson(lines.toArray(String[]::new)), LoadOptions.DEFAULT)
                .block(WAIT);
    }

    private void mutate(String branch, String query, Map<String, Object> params) {
        graph.mutate(branch, WRITES, query, params, WriteOptions.DEFAULT).block(WAIT);
    }

    private static String name(int i) {
        return "p" + i;
    }
}
