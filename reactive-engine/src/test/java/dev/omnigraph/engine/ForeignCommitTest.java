package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.error.OmnigraphException;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The specification's table commit must land exactly at its read version + 1, with no transparent rebase. Lance 7
 * has no switch that refuses a stale commit up front (a stale Append rebases whatever {@code maxRetries} says; see
 * docs/architecture.md, "Commits that never rebase"), so the engine detects a rebase after the fact. Here a foreign
 * writer commits to a table between a mutation's staging and its table commit: the mutation must fail typed, the
 * graph must stay exactly the old graph, and the foreign writer's commit must not be
 * mistaken for the mutation's. Recovery cannot tell the foreign version's intent, so it refuses to roll either way
 * and keeps the sidecar for an operator: every later write is refused, typed, and nothing is rewritten.
 */
class ForeignCommitTest extends ConstrainedGraphTest {
    static final String QUERIES = """
            query note($t: String) { insert Note { text: $t } }
            """;

    Mono<WriteOutcome> note(String text) {
        return graph.mutate("main", QUERIES, "note", Map.of("t", text), WriteOptions.DEFAULT);
    }

    String head() {
        return graph.commits("main").blockFirst().id();
    }

    List<Object> notes() {
        return rows(graph, "node:Note").stream().map(row -> row.get("text")).sorted().toList();
    }

    @Test
    void aForeignCommitBetweenStageAndCommitIsDetectedAndTheGraphStaysOld() throws Exception {
        note("before").block();
        String before = head();
        TableEntry pin = EngineInternals.pins(graph).get("node:Note");
        TableRef table = TableRef.main(dir.resolve("g").resolve(pin.location()).toString());
        TableStorage tables = services.tables();

        Failpoints.Parked armed = graph.failpoints().park("mutation." + FailpointCatalog.AFTER_ARM);
        CompletableFuture<WriteOutcome> write = note("mine").toFuture();
        armed.reached().block();
        // A writer outside the engine commits to the table the mutation has staged on.
        TableSnapshot latest = tables.open(table, OptionalLong.empty()).block();
        StagedHandle foreign = tables.stageAppend(latest, List.of(Map.of("id", "foreign-1", "text", "foreign")),
                Map.of()).block();
        long foreignVersion = tables.commitStaged(foreign).block().version();
        armed.release();

        assertThatThrownBy(() -> write.get(60, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(OmnigraphException.class);
        assertThat(head()).as("nothing published").isEqualTo(before);
        assertThat(notes()).as("the old graph exactly").containsExactly("before");

        // The table's history now holds a version the graph cannot account for, so recovery refuses to guess: the
        // sidecar is kept for an operator and every write on the graph is refused, typed, until then.
        assertThat(graph.sidecars().list().collectList().block()).hasSize(1);
        assertThatThrownBy(() -> note("after").block()).isInstanceOf(RecoveryRequired.class)
                .hasMessageContaining("node:Note is FOREIGN");
        assertThat(notes()).as("still the old graph exactly").containsExactly("before");
        // Nothing was lost: the foreign commit is the table's next version, the mutation's rebased commit after it.
        assertThat(tables.head(table).block()).isEqualTo(foreignVersion + 1);
        TableSnapshot atForeign = tables.open(table, OptionalLong.of(foreignVersion)).block();
        assertThat(tables.count(atForeign, Optional.of("id = 'foreign-1'")).block()).isEqualTo(1);
        assertThat(tables.count(atForeign, Optional.empty()).block()).isEqualTo(2);
    }
}
