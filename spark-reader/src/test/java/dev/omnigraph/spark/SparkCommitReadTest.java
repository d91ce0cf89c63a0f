package dev.omnigraph.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.QueryOutput;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.load.LoadMode;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * A graph commit read by Spark: the engine loads a small graph, {@link CommitTables} names each table's dataset and
 * pinned version, and a local Spark session ({@link SparkJoinMain}, in a child JVM: the Lance Spark connector 0.4.0
 * needs its own lance-core 4.0.0) reads them through the Lance Spark connector, joins edges to nodes and must answer
 * what the engine's own query answers — also for the first commit after a later write.
 */
class SparkCommitReadTest {
    static final String SCHEMA = """
            node Person {
                name: String @key
                age: I32?
            }
            edge Knows: Person -> Person
            """;
    static final String QUERIES = """
            query friends() { match { $a: Person $a knows $b } return { $a.name, $b.name } order { $a.name asc, $b.name asc } }
            """;

    @Test
    void sparkReadsEachTableAtTheVersionTheCommitPins(@TempDir Path dir) throws Exception {
        StorageServices services = StorageServices.create();
        Omnigraph graph = Omnigraph.at(dir.resolve("g")).services(services).init(SCHEMA).block();
        CommitTables first;
        CommitTables second;
        CommitTables firstAgain;
        List<String> firstAnswer;
        List<String> secondAnswer;
        try {
            load(graph, """
                    {"type":"Person","data":{"name":"Ada","age":36}}
                    {"type":"Person","data":{"name":"Bob","age":41}}
                    {"type":"Person","data":{"name":"Cy"}}
                    {"edge":"Knows","from":"Ada","to":"Bob"}
                    {"edge":"Knows","from":"Bob","to":"Cy"}
                    """);
            first = CommitTables.of(graph, ReadTarget.main()).block();
            firstAnswer = engineFriends(graph, first.graphCommitId());
            assertThat(firstAnswer).containsExactly("Ada->Bob", "Bob->Cy");

            load(graph, """
                    {"type":"Person","data":{"name":"Dee","age":29}}
                    {"edge":"Knows","from":"Cy","to":"Dee"}
                    {"edge":"Knows","from":"Dee","to":"Ada"}
                    """);
            second = CommitTables.of(graph, ReadTarget.main()).block();
            assertThat(second.graphCommitId()).isNotEqualTo(first.graphCommitId());
            assertThat(second.node("Person").version()).isGreaterThan(first.node("Person").version());
            secondAnswer = engineFriends(graph, second.graphCommitId());
            assertThat(secondAnswer).containsExactly("Ada->Bob", "Bob->Cy", "Cy->Dee", "Dee->Ada");

            firstAgain = CommitTables.of(graph, ReadTarget.commit(first.graphCommitId())).block();
            assertThat(firstAgain.tables()).isEqualTo(first.tables());
        } finally {
            graph.close();
            services.close();
        }

        Map<String, List<String>> spark = runSpark(dir, Map.of("first", first, "second", second));
        assertThat(spark.get("first")).containsExactly("persons 3", "knows 2",
                "pair Ada->Bob", "pair Bob->Cy");
        assertThat(pairs(spark.get("first"))).isEqualTo(firstAnswer);
        assertThat(pairs(spark.get("second"))).isEqualTo(secondAnswer);
        assertThat(spark.get("second")).startsWith("persons 4", "knows 4");
        assertThat(first.node("Person").rowCount()).isEqualTo(3);
        assertThat(second.edge("Knows").rowCount()).isEqualTo(4);
    }

    private static List<String> pairs(List<String> lines) {
        return lines.stream().filter(l -> l.startsWith("pair ")).map(l -> l.substring(5)).collect(Collectors.toList());
    }

    /** Runs {@link SparkJoinMain} on each commit's Person and Knows tables; its output lines by label. */
    private static Map<String, List<String>> runSpark(Path dir, Map<String, CommitTables> commits) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(Arrays.asList(System.getProperty("spark.child.jvm.flags").trim().split("\\s+")));
        command.add("-Xmx1g");
        command.add("-cp");
        command.add(childClasspath());
        command.add(SparkJoinMain.class.getName());
        for (Map.Entry<String, CommitTables> e : commits.entrySet()) {
            PinnedTable person = e.getValue().node("Person");
            PinnedTable knows = e.getValue().edge("Knows");
            command.addAll(List.of(e.getKey(), person.datasetUri(), Long.toString(person.version()),
                    knows.datasetUri(), Long.toString(knows.version())));
        }
        Path out = dir.resolve("spark.out");
        Path err = dir.resolve("spark.err");
        Process child = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        boolean done = child.waitFor(5, TimeUnit.MINUTES);
        if (!done) {
            child.destroyForcibly();
        }
        assertThat(done && child.exitValue() == 0)
                .as("Spark child exited cleanly; its stderr:%n%s", tail(err)).isTrue();
        Map<String, List<String>> byLabel = new java.util.HashMap<>();
        for (String line : Files.readAllLines(out)) {
            int space = line.indexOf(' ');
            if (space > 0 && commits.containsKey(line.substring(0, space))) {
                byLabel.computeIfAbsent(line.substring(0, space), k -> new ArrayList<>()).add(line.substring(space + 1));
            }
        }
        return byLabel;
    }

    /** The test classpath with lance-core 7 swapped for the connector's lance-core 4.0.0 and its companions. */
    private static String childClasspath() throws Exception {
        String testPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> entries = Stream.of(testPath.split(File.pathSeparator))
                .filter(entry -> !Path.of(entry).getFileName().toString().startsWith("lance-core-"))
                .collect(Collectors.toCollection(ArrayList::new));
        try (Stream<Path> jars = Files.list(Path.of(System.getProperty("spark.child.lance.dir")))) {
            jars.map(Path::toString).sorted().forEach(entries::add);
        }
        return String.join(File.pathSeparator, entries);
    }

    private static String tail(Path file) throws Exception {
        if (!Files.exists(file)) {
            return "";
        }
        List<String> lines = Files.readAllLines(file);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    private static List<String> engineFriends(Omnigraph graph, String commit) {
        QueryOutput out = graph.query(ReadTarget.commit(commit), QUERIES, "friends", Map.of()).block();
        return out.rows().map(row -> row.get(0) + "->" + row.get(1)).collectList().block();
    }

    private static void load(Omnigraph graph, String ndjson) {
        Flux<ByteBuffer> lines = Flux.fromIterable(Arrays.asList(ndjson.split("\n")))
                .map(line -> ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8)));
        graph.load("main", LoadMode.MERGE, lines, LoadOptions.DEFAULT).block();
    }
}
