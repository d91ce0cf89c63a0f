package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static dev.omnigraph.engine.GraphTestSupport.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.ValidationError;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The two validation gaps of issue 30 (item 6), each as the reference behaves: a merge load that moves an edge to
 * another source re-checks the vacated source's {@code @card} minimum; a query pinned to a commit made before a
 * {@code @rename_from} rename resolves today's type name by identity, and a type dropped and re-created under
 * its old name is refused there rather than read as the other type.
 */
class ValidationGapsTest extends InitedGraphTestBase {
    @Override
    String schema() {
        return SchemaEvolutionTest.BASE;
    }

    void load(LoadMode mode, String... lines) {
        graph.load("main", mode, ndjson(lines), LoadOptions.DEFAULT).block(Duration.ofSeconds(60));
    }

    List<List<Object>> query(ReadTarget target, String source) {
        return graph.query(target, source, "q", Map.of()).flatMap(out -> out.rows().collectList()).block(Duration.ofSeconds(60));
    }

    String head() {
        return graph.snapshot(ReadTarget.main()).block().graphCommitId().orElseThrow();
    }

    @Test
    void aMergeLoadMovingAnEdgeChecksTheVacatedSourcesCardMinimum() {
        graph.close();
        graph = Omnigraph.init(services, dir.resolve("card"), UpstreamCompatTest.CARD_SCHEMA).block();
        load(LoadMode.APPEND, "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}", "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\"}}",
                "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}",
                "{\"edge\":\"WorksAt\",\"from\":\"Ada\",\"to\":\"Acme\",\"data\":{\"id\":\"w1\"}}",
                "{\"edge\":\"WorksAt\",\"from\":\"Bob\",\"to\":\"Acme\",\"data\":{\"id\":\"w2\"}}");
        Map<String, Long> before = versions(graph);
        // w1 moves from Ada to Bob: Ada is left with no WorksAt, under @card(1..).
        assertThatThrownBy(() -> load(LoadMode.MERGE, "{\"edge\":\"WorksAt\",\"from\":\"Bob\",\"to\":\"Acme\",\"data\":{\"id\":\"w1\"}}"))
                .isInstanceOfSatisfying(ValidationError.class, e -> {
                    assertThat(e.entityId()).isEqualTo("Ada");
                    assertThat(e.getMessage()).contains("Ada").contains("@card(1..*)");
                });
        assertThat(versions(graph)).as("nothing written").isEqualTo(before);
        // Moving it back where it was keeps every source's minimum: allowed.
        load(LoadMode.MERGE, "{\"edge\":\"WorksAt\",\"from\":\"Ada\",\"to\":\"Acme\",\"data\":{\"id\":\"w1\"}}");
        graph.close();
    }

    @Test
    void aQueryPinnedBeforeARenameResolvesTodaysNameByIdentity() {
        graph.mutate("main", SchemaEvolutionTest.SEED, "add", Map.of("name", "Ada", "age", 36), WriteOptions.DEFAULT).block();
        String before = head();
        graph.applySchema(SchemaEvolutionTest.BASE.replace("node Person {", "node Human @rename_from(\"Person\") {")
                .replace("edge Knows: Person -> Person", "edge Knows: Human -> Human"), false, Optional.empty()).block();
        graph.mutate("main", "query add($n: String) { insert Human { name: $n } }", "add", Map.of("n", "Bob"),
                WriteOptions.DEFAULT).block();

        String byNewName = "query q() { match { $p: Human } return { $p.name, $p.age } order { $p.name } }";
        assertThat(query(ReadTarget.commit(before), byNewName)).as("today's name, the rows of that commit")
                .containsExactly(List.of("Ada", 36));
        assertThat(query(ReadTarget.commit(before), byNewName.replace("Human", "Person"))).as("its name of the time")
                .containsExactly(List.of("Ada", 36));
        assertThat(query(ReadTarget.main(), byNewName)).hasSize(2);
        // An export of that commit is bound to the schema it was published under too.
        assertThat(graph.export(ReadTarget.commit(before), java.util.Set.of()).collectList().block())
                .anySatisfy(line -> assertThat(line).contains("\"Person\"").contains("Ada"))
                .noneSatisfy(line -> assertThat(line).contains("Human"));
        graph.close();
    }

    @Test
    void aTypeDroppedAndRecreatedUnderItsOldNameIsRefusedAtAnOlderCommit() {
        graph.mutate("main", SchemaEvolutionTest.SEED, "note", Map.of("t", "old note"), WriteOptions.DEFAULT).block();
        String before = head();
        String withoutNote = SchemaEvolutionTest.BASE.replace("node Note {\n    text: String\n}\n", "");
        assertThat(withoutNote).doesNotContain("Note");
        graph.applySchema(withoutNote, true, Optional.empty()).block();
        graph.applySchema(SchemaEvolutionTest.BASE, false, Optional.empty()).block(); // a new Note: another identity
        graph.mutate("main", SchemaEvolutionTest.SEED, "note", Map.of("t", "new note"), WriteOptions.DEFAULT).block();

        String notes = "query q() { match { $n: Note } return { $n.text } }";
        assertThatThrownBy(() -> query(ReadTarget.commit(before), notes)).isInstanceOfSatisfying(BadRequest.class,
                e -> assertThat(e.getMessage()).contains("Note").contains("dropped and re-created"));
        assertThat(query(ReadTarget.main(), notes)).containsExactly(List.of("new note"));
        // A type that kept its identity still reads at that commit.
        assertThat(query(ReadTarget.commit(before), "query q() { match { $p: Person } return { $p.name } }")).isEmpty();
        graph.close();
    }
}
