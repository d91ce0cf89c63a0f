package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A history for cleanup tests on {@link GraphTestSupport#CONSTRAINED}: appends, an update and a delete on main (so
 * there are deletion files), a branch {@code feat} taken half-way that forks Person and keeps reading every other
 * table through main's files, and more writes on both afterwards.
 */
final class CleanupHistory {
    static final String QUERIES = """
            query addPerson($name: String, $age: I32) { insert Person { name: $name, age: $age } }
            query older($name: String) { update Person set { age: 99 } where name = $name }
            query drop($name: String) { delete Person where name = $name }
            query note($text: String) { insert Note { text: $text } }
            """;

    private CleanupHistory() {
    }

    static void build(Omnigraph graph) {
        graph.load("main", LoadMode.APPEND, ndjson(
                "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":36}}",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\",\"age\":41}}",
                "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Bob\"}"), LoadOptions.DEFAULT).block();
        person(graph, "main", "Cy");
        note(graph, "main", "first");
        person(graph, "main", "Di");
        graph.createBranch("feat", Optional.empty()).block();
        person(graph, "feat", "Fay");
        mutate(graph, "main", "older", Map.of("name", "Ada"));
        mutate(graph, "main", "drop", Map.of("name", "Cy"));
        person(graph, "main", "Eve");
        note(graph, "main", "second");
        person(graph, "feat", "Gus");
        person(graph, "main", "Hal");
    }

    static void person(Omnigraph graph, String branch, String name) {
        mutate(graph, branch, "addPerson", Map.of("name", name, "age", 30));
    }

    static void note(Omnigraph graph, String branch, String text) {
        mutate(graph, branch, "note", Map.of("text", text));
    }

    static void mutate(Omnigraph graph, String branch, String query, Map<String, Object> params) {
        graph.mutate(branch, QUERIES, query, params, WriteOptions.DEFAULT).block();
    }

    /** Every row of every table as {@code target} sees the graph. */
    static Map<String, List<Map<String, Object>>> everything(Omnigraph graph, ReadTarget target) {
        Map<String, List<Map<String, Object>>> out = new TreeMap<>();
        for (TableInfo table : graph.snapshot(target).block().tables()) {
            out.put(table.tableKey(), GraphTestSupport.rows(graph, target, table.tableKey()));
        }
        return out;
    }

    /** Commit id → the whole graph as of that commit, for every commit of {@code branch}, newest first. */
    static Map<String, Map<String, List<Map<String, Object>>>> timeTravel(Omnigraph graph, String branch) {
        Map<String, Map<String, List<Map<String, Object>>>> out = new LinkedHashMap<>();
        for (GraphCommit commit : graph.commits(branch).collectList().block()) {
            out.put(commit.id(), everything(graph, ReadTarget.commit(commit.id())));
        }
        return out;
    }

    /** The ids of the newest {@code n} commits of {@code branch}. */
    static List<String> newest(Omnigraph graph, String branch, int n) {
        return new ArrayList<>(graph.commits(branch).take(n).map(GraphCommit::id).collectList().block());
    }

    /** Bytes of every regular file under {@code root}. */
    static long diskUsage(Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile).mapToLong(file -> {
                try {
                    return Files.size(file);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Version manifests on disk under {@code dataset}'s main ref. */
    static long versionFiles(Path dataset) {
        try (Stream<Path> list = Files.list(dataset.resolve("_versions"))) {
            return list.filter(path -> path.toString().endsWith(".manifest")).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
