package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.engine.write.WriteToken;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.ReadSetChanged;
import dev.omnigraph.storage.manifest.ExpectedHead;
import dev.omnigraph.storage.manifest.PublishRequest;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Schema identity is part of write authority (issue 30, item 2): the manifest's stamp records the accepted schema
 * identity (init and every schema apply write it), a write token carries the stored one, and a write planned with
 * another schema is refused with {@code ReadSetChanged} on {@code schema_identity} before any effect.
 */
class SchemaAuthorityTest extends InitedGraphTestBase {
    @Override
    String schema() {
        return SchemaEvolutionTest.BASE;
    }

    @BeforeEach
    void seed() {
        mutate(graph, "add", "name", "Ada", "age", 36);
    }

    @AfterEach
    void idle() {
        assertThat(graph.gates().allIdle()).as("no gate left held").isTrue();
        graph.close();
    }

    static WriteOutcome mutate(Omnigraph on, String query, Object... kv) {
        Map<String, Object> params = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) params.put((String) kv[i], kv[i + 1]);
        return on.mutate("main", SchemaEvolutionTest.SEED, query, params, WriteOptions.DEFAULT).block(Duration.ofSeconds(60));
    }

    Optional<String> storedIdentity() {
        return graph.manifest().load("main").block().schemaIdentity();
    }

    String acceptedIdentity(Omnigraph on) {
        return EngineInternals.writeContext(on).schemaIrHash();
    }

    List<Object> people() {
        return rows(graph, "node:Person").stream().map(row -> row.get("id")).sorted().toList();
    }

    @Test
    void initRecordsTheAcceptedIdentityAndEachApplyReplacesItThroughEveryPublish() {
        String initial = acceptedIdentity(graph);
        assertThat(storedIdentity()).contains(initial);
        mutate(graph, "add", "name", "Bob", "age", 40);
        assertThat(storedIdentity()).as("an ordinary publish carries it").contains(initial);
        graph.applySchema(SchemaEvolutionTest.BASE.replace("age: I32?", "age: I32?\n    nickname: String?"), false,
                Optional.empty()).block(Duration.ofSeconds(120));
        String applied = acceptedIdentity(graph);
        assertThat(applied).isNotEqualTo(initial);
        assertThat(storedIdentity()).contains(applied);
        Omnigraph reopened = Omnigraph.open(services, graph.root(), OpenMode.READ_WRITE).block();
        assertThat(reopened.manifest().load("main").block().schemaIdentity()).contains(applied);
        reopened.close();
    }

    @Test
    void aSchemaPublishedElsewhereRefusesTheNextWriteBeforeAnyEffect() {
        // Another writer (here: a publish stamped with another schema, as another process's apply would land)
        // moves the stored identity; this handle still plans with its own schema.
        String head = graph.commits("main").blockFirst().id();
        graph.publisher().publish(new PublishRequest("main", new ExpectedHead.Exact(Optional.of(head)), Optional.empty(),
                Map.of(), List.of(), Ulid.next(), Optional.empty(), Optional.of("elsewhere"), 1L, "foreign")
                .withSchemaIdentity("another-schema")).block();
        long commitsBefore = graph.commits("main").count().block();

        assertThatThrownBy(() -> mutate(graph, "add", "name", "Bob", "age", 40))
                .isInstanceOfSatisfying(ReadSetChanged.class, moved -> {
                    assertThat(moved.what()).isEqualTo(WriteToken.SCHEMA_MEMBER);
                    assertThat(moved.expected()).isEqualTo(acceptedIdentity(graph));
                    assertThat(moved.actual()).isEqualTo("another-schema");
                });
        assertThat(people()).containsExactly("Ada");
        assertThat(graph.commits("main").count().block()).isEqualTo(commitsBefore);
        assertThat(graph.sidecars().list().collectList().block()).as("refused before the arm").isEmpty();
    }

    @Test
    void aReadBindsOnlyTheSchemaItsSnapshotWasPublishedWith() {
        String query = "query q() { match { $p: Person } return { $p.name } }";
        assertThat(graph.query(ReadTarget.main(), query, "q", Map.of()).flatMap(out -> out.rows().collectList()).block())
                .hasSize(1);
        String head = graph.commits("main").blockFirst().id();
        graph.publisher().publish(new PublishRequest("main", new ExpectedHead.Exact(Optional.of(head)), Optional.empty(),
                Map.of(), List.of(), Ulid.next(), Optional.empty(), Optional.of("elsewhere"), 1L, "foreign")
                .withSchemaIdentity("another-schema")).block();
        // The head snapshot now says another schema, which this handle cannot load: refused, not read with its own.
        assertThatThrownBy(() -> graph.query(ReadTarget.main(), query, "q", Map.of()).block())
                .isInstanceOfSatisfying(dev.omnigraph.storage.error.RecoveryRequired.class,
                        e -> assertThat(e.getMessage()).contains("another-schema"));
        // A commit published under this handle's schema still reads.
        assertThat(graph.query(ReadTarget.commit(head), query, "q", Map.of()).flatMap(out -> out.rows().collectList())
                .block()).hasSize(1);
    }

    @Test
    void anApplyByAnotherHandleWhileAWriteWaitsForTheGatesRefusesThatWrite() throws Exception {
        Omnigraph other = Omnigraph.open(services, graph.root(), OpenMode.READ_WRITE).block();
        Failpoints.Parked staged = other.failpoints().park("schema_apply.after_staging");
        CompletableFuture<?> apply = other.applySchema(SchemaEvolutionTest.BASE.replace("age: I32?", "age: I64?"),
                false, Optional.empty()).toFuture();
        staged.reached().block(Duration.ofSeconds(60));
        // The apply holds the schema gate: this write compiles against the schema it knows, then waits for the gates.
        CompletableFuture<WriteOutcome> write = graph.mutate("main", SchemaEvolutionTest.SEED, "add",
                Map.of("name", "Bob", "age", 40), WriteOptions.DEFAULT).toFuture();
        assertThat(graph.gates().toString()).as("the write is queued behind the apply").contains("waiting=1");
        staged.release();
        apply.get(120, TimeUnit.SECONDS);

        assertThatThrownBy(() -> write.get(60, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOfSatisfying(ReadSetChanged.class,
                        moved -> assertThat(moved.what()).isEqualTo(WriteToken.SCHEMA_MEMBER));
        assertThat(people()).containsExactly("Ada");
        // A retry plans with the applied schema and lands.
        assertThat(mutate(graph, "add", "name", "Bob", "age", 40).commit()).isPresent();
        assertThat(people()).containsExactly("Ada", "Bob");
        other.close();
    }
}
