package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.params;
import static dev.omnigraph.engine.GraphTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.error.PreconditionFailed;
import dev.omnigraph.storage.error.ValidationError;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Concurrent writers on one branch queue on its gate and plan against the head they will publish on (alone or
 * grouped with the writes that queued with them): strict writes no longer fail because another in-process write
 * moved the head, none loses another's update, and every acknowledged commit is an exact time-travel point that
 * includes every write acknowledged before it.
 */
class QueuedWritersTest extends ConstrainedGraphTest {
    static final String QUERIES = """
            query addPerson($name: String) { insert Person { name: $name } }
            query addNote($text: String) { insert Note { text: $text } }
            query setAge($name: String, $age: I32) { update Person set { age: $age } where name = $name }
            query setEmail($name: String, $email: String) { update Person set { email: $email } where name = $name }
            query setStatus($name: String, $s: String) { update Person set { status: $s } where name = $name }
            query touch($name: String) { update Person set { seen: now() } where name = $name }
            """;
    static final List<String> PEOPLE = List.of("Ada", "Bob", "Cy", "Di");
    static final List<String> FIELDS = List.of("age", "email", "status", "seen");


    Mono<WriteOutcome> run(WriteOptions options, String query, Object... keyValues) {
        return graph.mutate("main", QUERIES, query, params(keyValues), options);
    }

    Mono<WriteOutcome> run(String query, Object... keyValues) {
        return run(WriteOptions.DEFAULT, query, keyValues);
    }

    /** Each write sets one distinct, initially empty field: a lost update would leave a field empty. */
    Mono<WriteOutcome> setField(String person, String field, int n) {
        return switch (field) {
            case "age" -> run("setAge", "name", person, "age", 20 + n);
            case "email" -> run("setEmail", "name", person, "email", person.toLowerCase() + "@x");
            case "status" -> run("setStatus", "name", person, "s", "retired");
            default -> run("touch", "name", person);
        };
    }

    @Test
    void sixteenConcurrentStrictUpdatesAllLandWithNoLostUpdateAndEachCommitIsExact() {
        for (String person : PEOPLE) {
            run("addPerson", "name", person).block(Duration.ofSeconds(60));
        }
        String seedHead = graph.snapshot(ReadTarget.main()).block().graphCommitId().orElseThrow();
        List<Mono<WriteOutcome>> writes = new ArrayList<>();
        for (int p = 0; p < PEOPLE.size(); p++) {
            for (String field : FIELDS) {
                writes.add(setField(PEOPLE.get(p), field, p));
            }
        }
        // Strict (update) writes: before queueing, all but the first to publish failed with ReadSetChanged.
        List<WriteOutcome> outcomes = Flux.fromIterable(writes).flatMap(write -> write, 16)
                .collectList().block(Duration.ofSeconds(180));
        assertThat(outcomes).hasSize(16).allSatisfy(outcome -> assertThat(outcome.commit()).isPresent());

        assertThat(setFields(ReadTarget.main())).as("no update lost").isEqualTo(16);
        // The acknowledged commits (one per write, or one per group of writes) form one chain from the seed head;
        // the state at each holds exactly the writes acknowledged up to it (time travel to every id is exact).
        Map<String, Integer> writesPerCommit = new HashMap<>();
        Map<String, GraphCommit> byParent = new HashMap<>();
        for (WriteOutcome outcome : outcomes) {
            GraphCommit commit = outcome.commit().orElseThrow();
            writesPerCommit.merge(commit.id(), 1, Integer::sum);
            assertThat(commit.parentIds()).hasSize(1);
            GraphCommit other = byParent.put(commit.parentIds().get(0), commit);
            assertThat(other == null || other.id().equals(commit.id())).as("two commits on one parent").isTrue();
        }
        String at = seedHead;
        int acknowledged = 0;
        while (acknowledged < 16) {
            GraphCommit next = byParent.get(at);
            assertThat(next).as("commit after " + at).isNotNull();
            int inCommit = writesPerCommit.get(next.id());
            acknowledged += inCommit;
            assertThat(setFields(ReadTarget.commit(next.id()))).as("fields set at " + next.id()).isEqualTo(acknowledged);
            assertThat(next.operation()).startsWith(inCommit == 1 ? "mutation:" : "group of " + inCommit + ": mutation:");
            at = next.id();
        }
        assertThat(graph.snapshot(ReadTarget.main()).block().graphCommitId()).contains(at);
    }

    @Test
    void aFailingWriteAmongConcurrentWritesFailsAlone() {
        List<Mono<Object>> writes = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            String name = i % 4 == 3 ? "Bad" + i : "Good" + (char) ('a' + i); // digits break @check(name)
            writes.add(run("addPerson", "name", name).<Object>map(outcome -> outcome)
                    .onErrorResume(ValidationError.class, Mono::just));
        }
        List<Object> outcomes = Flux.fromIterable(writes).flatMap(write -> write, 16)
                .collectList().block(Duration.ofSeconds(180));
        assertThat(outcomes.stream().filter(ValidationError.class::isInstance)).hasSize(4);
        assertThat(outcomes.stream().filter(WriteOutcome.class::isInstance)).hasSize(12);
        assertThat(rows(graph, "node:Person")).hasSize(12)
                .allSatisfy(row -> assertThat((String) row.get("id")).startsWith("Good"));
    }

    @Test
    void aConditionalWriteQueuedBehindAnotherKeepsItsPrecondition() {
        String head = run("addNote", "text", "seed").block(Duration.ofSeconds(60)).commit().orElseThrow().id();
        Failpoints.Parked parked = graph.failpoints().park("mutation.after_gates");
        CompletableFuture<WriteOutcome> first = run("addNote", "text", "first").toFuture();
        parked.reached().block();
        graph.failpoints().disarm("mutation.after_gates");
        // Planned before the first write publishes, it would pass its precondition; queued, it sees the new head.
        CompletableFuture<WriteOutcome> conditional = run(WriteOptions.DEFAULT.ifGraphCommit(head), "addNote",
                "text", "conditional").toFuture();
        parked.release();
        String firstId = first.join().commit().orElseThrow().id();
        assertThat(conditional).failsWithin(Duration.ofSeconds(60)).withThrowableThat()
                .havingCause().isInstanceOfSatisfying(PreconditionFailed.class, e -> {
                    assertThat(e.expected()).isEqualTo(head);
                    assertThat(e.actual()).isEqualTo(firstId);
                });
        assertThat(rows(graph, "node:Note")).extracting(row -> row.get("text")).containsExactlyInAnyOrder("seed", "first");
    }

    private int setFields(ReadTarget target) {
        int set = 0;
        for (Map<String, Object> row : rows(graph, target, "node:Person")) {
            for (String field : FIELDS) {
                if (row.get(field) != null) {
                    set++;
                }
            }
        }
        return set;
    }
}
