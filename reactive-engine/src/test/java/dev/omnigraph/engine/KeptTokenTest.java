package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A plain mutation plans on the branch state its handle last knew, without reading the manifest version first;
 * the recheck under the gates reads the live version. When another handle (here: of the same process, with its
 * own manifest cache; in general another process) moved the branch meanwhile, the write is planned again on the
 * live head — a strict update too, since it never saw a live head move under it — and lands on top of it.
 */
class KeptTokenTest extends ConstrainedGraphTest {
    static final String QUERIES = """
            query add($name: String, $age: I32) { insert Person { name: $name, age: $age } }
            query setAge($name: String, $age: I32) { update Person set { age: $age } where name = $name }
            query note($t: String) { insert Note { text: $t } }
            query knows($a: String, $b: String) { insert Knows { from: $a, to: $b } }
            query remove($name: String) { delete Person where name = $name }
            """;
    static final Duration WAIT = Duration.ofSeconds(60);

    WriteOutcome mutate(Omnigraph handle, String query, Map<String, Object> params) {
        return handle.mutate("main", QUERIES, query, params, WriteOptions.DEFAULT).block(WAIT);
    }

    String head() {
        return graph.commits("main").blockFirst().id();
    }

    @Test
    void writesPlannedOnAStaleKeptStateArePlannedAgainOnTheLiveHead() {
        mutate(graph, "add", Map.of("name", "Ada", "age", 1)); // this handle now keeps the state it published
        String othersHead;
        try (Omnigraph other = Omnigraph.open(services, dir.resolve("g"), OpenMode.READ_WRITE).block(WAIT)) {
            othersHead = mutate(other, "add", Map.of("name", "Bob", "age", 2)).commit().orElseThrow().id();
        }

        // Strict: planned first on the kept state (no Bob), then again on the live head, where it matches Bob.
        GraphCommit updated = mutate(graph, "setAge", Map.of("name", "Bob", "age", 3)).commit().orElseThrow();
        assertThat(updated.parentIds()).containsExactly(othersHead);
        assertThat(rows(graph, "node:Person").stream().map(row -> row.get("name") + "=" + row.get("age")).sorted())
                .containsExactly("Ada=1", "Bob=3");

        try (Omnigraph other = Omnigraph.open(services, dir.resolve("g"), OpenMode.READ_WRITE).block(WAIT)) {
            othersHead = mutate(other, "note", Map.of("t", "theirs")).commit().orElseThrow().id();
        }
        GraphCommit inserted = mutate(graph, "note", Map.of("t", "mine")).commit().orElseThrow();
        assertThat(inserted.parentIds()).containsExactly(othersHead);
        assertThat(head()).isEqualTo(inserted.id());
        assertThat(rows(graph, "node:Note").stream().map(row -> row.get("text")).sorted()).containsExactly("mine", "theirs");
    }

    @Test
    void aRefusalOnAStaleKeptStateIsNotTheAnswer() {
        mutate(graph, "add", Map.of("name", "Ada", "age", 1));
        try (Omnigraph other = Omnigraph.open(services, dir.resolve("g"), OpenMode.READ_WRITE).block(WAIT)) {
            mutate(other, "add", Map.of("name", "Cy", "age", 2));
        }
        // On the kept state Cy does not exist, so the edge would be refused; the live head has Cy.
        assertThat(mutate(graph, "knows", Map.of("a", "Ada", "b", "Cy")).commit()).isPresent();
        assertThat(rows(graph, "edge:Knows")).hasSize(1);
    }

    @Test
    void aKeptStateOfABranchDeletedAndCreatedAgainIsNotTheNewBranch() {
        mutate(graph, "add", Map.of("name", "Ada", "age", 1));
        mutate(graph, "add", Map.of("name", "Cy", "age", 2));
        graph.createBranch("side", java.util.Optional.empty()).block(WAIT);
        mutate(graph, "remove", Map.of("name", "Cy"));
        graph.deleteBranch("side").block(WAIT); // this handle last knew "side" with Cy
        graph.createBranch("side", java.util.Optional.empty()).block(WAIT);

        // The new "side" starts from main without Cy: an edge to Cy must be refused, not planned on the old state.
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> graph.mutate("side", QUERIES, "knows",
                        Map.of("a", "Ada", "b", "Cy"), WriteOptions.DEFAULT).block(WAIT))
                .isInstanceOf(dev.omnigraph.storage.error.ValidationError.class);
        assertThat(rows(graph, "edge:Knows")).isEmpty();
    }
}
