package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.merge.MergeResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** Short writes and reads for merge tests on the constrained graph. */
abstract class MergeFixture extends ConstrainedGraphTest {
    static final String QUERIES = """
            query drop($name: String) { delete Person where name = $name }
            query dropCompany($name: String) { delete Company where name = $name }
            query quitJob($name: String) { delete WorksAt where from = $name }
            """;

    void load(String branch, LoadMode mode, String... lines) {
        graph.load(branch, mode, ndjson(lines), LoadOptions.DEFAULT).block();
    }

    static String person(String name, int age) {
        return "{\"type\":\"Person\",\"data\":{\"name\":\"" + name + "\",\"age\":" + age + "}}";
    }

    static String job(String id, String from, String to, String since) {
        return "{\"edge\":\"WorksAt\",\"from\":\"" + from + "\",\"to\":\"" + to + "\",\"data\":{\"id\":\"" + id
                + "\",\"since\":\"" + since + "\"}}";
    }

    void run(String branch, String query, String name) {
        graph.mutate(branch, QUERIES, query, Map.of("name", name), WriteOptions.DEFAULT).block();
    }

    MergeResult merge(String source, String target) {
        return graph.mergeBranch(source, target, false, Optional.empty()).block();
    }

    void branch(String name) {
        graph.createBranch(name, Optional.empty()).block();
    }

    /** id → a column of every row of {@code tableKey} on {@code branch}. */
    Map<String, Object> column(String branch, String tableKey, String column) {
        Map<String, Object> out = new TreeMap<>();
        GraphTestSupport.rows(graph, ReadTarget.branch(branch), tableKey).forEach(row -> out.put((String) row.get("id"), row.get(column)));
        return out;
    }

    String head(String branch) {
        return graph.commits(branch).next().block().id();
    }

    List<String> parents(String commitId) {
        return new ArrayList<>(graph.commit(commitId).block().parentIds());
    }
}
