package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.rows;
import static dev.omnigraph.engine.GraphTestSupport.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.write.WriteLimits;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.OmnigraphException;
import dev.omnigraph.storage.error.ParseError;
import dev.omnigraph.storage.error.PreconditionFailed;
import dev.omnigraph.storage.error.ReadSetChanged;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import dev.omnigraph.storage.error.ValidationError;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

class MutationTest extends ConstrainedGraphTest {
    static final String QUERIES = """
            query addPerson($name: String, $age: I32?) { insert Person { name: $name, age: $age } }
            query addNote($text: String) { insert Note { text: $text } }
            query knows($a: String, $b: String) { insert Knows { from: $a, to: $b } }
            query worksAt($p: String, $c: String) { insert WorksAt { from: $p, to: $c } }
            query addCompany($name: String) { insert Company { name: $name } }
            query addPair($a: String, $b: String) {
                insert Person { name: $a }
                insert Person { name: $b }
                insert Knows { from: $a, to: $b }
            }
            query setAge($name: String, $age: I32) { update Person set { age: $age } where name = $name }
            query retireOlder($age: I32) { update Person set { status: "retired" } where age > $age }
            query insertThenUpdate($n: String) {
                insert Person { name: $n, age: 10 }
                update Person set { age: 11 } where name = $n
            }
            query touch($name: String) { update Person set { seen: now() } where name = $name }
            query setEmail($name: String, $email: String) { update Person set { email: $email } where name = $name }
            query setStatus($name: String, $s: String) { update Person set { status: $s } where name = $name }
            query removePerson($name: String) { delete Person where name = $name }
            query mixed($name: String) {
                insert Person { name: $name }
                delete Person where name = $name
            }
            query people() { match { $p: Person } return { $p.name } }
            """;


    Mono<WriteOutcome> run(String query, Object... keyValues) {
        Map<String, Object> params = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            params.put((String) keyValues[i], keyValues[i + 1]);
        }
        return graph.mutate("main", QUERIES, query, params, WriteOptions.DEFAULT);
    }

    WriteOutcome mutate(String query, Object... keyValues) {
        return run(query, keyValues).block(Duration.ofSeconds(60));
    }

    Map<String, Object> person(String name) {
        return rows(graph, "node:Person").stream().filter(row -> name.equals(row.get("id"))).findFirst().orElseThrow();
    }

    @Test
    void keyedInsertIsAnUpsertByItsDerivedId() {
        StepVerifier.create(run("addPerson", "name", "Ada", "age", 36))
                .assertNext(outcome -> {
                    assertThat(outcome.commit()).isPresent();
                    assertThat(outcome.affectedNodes()).isEqualTo(1);
                })
                .verifyComplete();
        mutate("addPerson", "name", "Ada", "age", 37);
        assertThat(rows(graph, "node:Person")).hasSize(1);
        assertThat(person("Ada")).containsEntry("age", 37).containsEntry("name", "Ada");
        assertThat(graph.commits("main").collectList().block()).hasSize(3);
    }

    @Test
    void unkeyedInsertsMintFreshIds() {
        mutate("addNote", "text", "a");
        mutate("addNote", "text", "a");
        List<Map<String, Object>> notes = rows(graph, "node:Note");
        assertThat(notes).hasSize(2);
        assertThat(notes.get(0).get("id")).isNotEqualTo(notes.get(1).get("id"));
        assertThat((String) notes.get(0).get("id")).hasSize(26);
    }

    @Test
    void laterStatementsSeeEarlierWrites() {
        WriteOutcome pair = mutate("addPair", "a", "Ada", "b", "Bob");
        assertThat(pair.affectedNodes()).isEqualTo(2);
        assertThat(pair.affectedEdges()).isEqualTo(1);
        assertThat(rows(graph, "edge:Knows").get(0)).containsEntry("src", "Ada").containsEntry("dst", "Bob");
        mutate("insertThenUpdate", "n", "Cy");
        assertThat(person("Cy")).containsEntry("age", 11);
    }

    @Test
    void updatesApplyToEveryMatchAndANoOpPublishesNothing() {
        mutate("addPerson", "name", "Ada", "age", 36);
        mutate("addPerson", "name", "Bob", "age", 70);
        mutate("addPerson", "name", "Cy", "age", 80);
        WriteOutcome retired = mutate("retireOlder", "age", 50);
        assertThat(retired.affectedNodes()).isEqualTo(2);
        assertThat(person("Bob")).containsEntry("status", "retired").containsEntry("age", 70);
        assertThat(person("Ada").get("status")).isNull();

        Map<String, Long> before = versions(graph);
        WriteOutcome nothing = mutate("setAge", "name", "Nobody", "age", 1);
        assertThat(nothing.commit()).isEmpty();
        assertThat(versions(graph)).isEqualTo(before);
    }

    @Test
    void nowIsOneTimestampPerRequest() {
        mutate("addPerson", "name", "Ada", "age", 36);
        Instant before = Instant.now().minusMillis(1);
        mutate("touch", "name", "Ada");
        Instant seen = (Instant) person("Ada").get("seen");
        assertThat(seen).isBetween(before, Instant.now().plusMillis(1));
    }

    @Test
    void deletingANodeCascadesToItsEdgesInOneCommit() {
        mutate("addPair", "a", "Ada", "b", "Bob");
        mutate("knows", "a", "Bob", "b", "Ada");
        mutate("addCompany", "name", "Acme");
        mutate("worksAt", "p", "Ada", "c", "Acme");
        WriteOutcome removed = mutate("removePerson", "name", "Ada");
        assertThat(removed.affectedNodes()).isEqualTo(1);
        assertThat(removed.affectedEdges()).isEqualTo(3);
        assertThat(removed.commit().orElseThrow().deltas()).hasSize(3);
        assertThat(rows(graph, "node:Person")).extracting(row -> row.get("id")).containsExactly("Bob");
        assertThat(rows(graph, "edge:Knows")).isEmpty();
        assertThat(rows(graph, "edge:WorksAt")).isEmpty();
    }

    @Test
    void badRequestsAreRefusedBeforeAnyIo() {
        Map<String, Long> before = versions(graph);
        assertThatThrownBy(() -> mutate("mixed", "name", "Ada")).isInstanceOf(BadRequest.class)
                .hasMessageContaining("split");
        assertThatThrownBy(() -> mutate("addPerson", "age", 3)).isInstanceOf(BadRequest.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> mutate("addPerson", "name", 5)).isInstanceOf(BadRequest.class)
                .hasMessageContaining("$name");
        assertThatThrownBy(() -> mutate("nope")).isInstanceOf(BadRequest.class).hasMessageContaining("addPerson");
        assertThatThrownBy(() -> mutate("people")).isInstanceOf(BadRequest.class).hasMessageContaining("read query");
        assertThatThrownBy(() -> graph.mutate("main", "query q() {\n  insert Persn { name: \"x\" }\n}", "q", Map.of(),
                WriteOptions.DEFAULT).block()).isInstanceOfSatisfying(ParseError.class, e -> {
                    assertThat(e.line()).isEqualTo(2);
                    assertThat(e.getMessage()).contains("T10");
                });
        assertThat(versions(graph)).isEqualTo(before);
    }

    @Test
    void everyValidationFailureLeavesEveryVersionUnchanged() {
        mutate("addPerson", "name", "Ada", "age", 36);
        mutate("setEmail", "name", "Ada", "email", "ada@x");
        mutate("addPerson", "name", "Bob", "age", 40);
        mutate("addCompany", "name", "Acme");
        mutate("addCompany", "name", "Initech");
        mutate("worksAt", "p", "Ada", "c", "Acme");
        Map<String, Long> before = versions(graph);
        List<Runnable> failures = List.of(
                () -> mutate("knows", "a", "Ada", "b", "Ghost"),
                () -> mutate("addPerson", "name", "Old", "age", 200),
                () -> mutate("addPerson", "name", "N0pe", "age", 1),
                () -> mutate("setEmail", "name", "Bob", "email", "ada@x"),
                () -> mutate("worksAt", "p", "Ada", "c", "Initech"));
        for (Runnable failure : failures) {
            assertThatThrownBy(failure::run).isInstanceOf(ValidationError.class);
        }
        assertThatThrownBy(() -> mutate("setStatus", "name", "Ada", "s", "gone")).isInstanceOf(OmnigraphException.class)
                .hasMessageContaining("gone");
        assertThat(versions(graph)).isEqualTo(before);
    }

    @Test
    void sixteenConcurrentInsertsAllLand() {
        List<WriteOutcome> outcomes = Flux.range(0, 16).flatMap(i -> run("addNote", "text", "n" + i), 16)
                .collectList().block(Duration.ofSeconds(120));
        assertThat(outcomes).hasSize(16).allSatisfy(outcome -> assertThat(outcome.commit()).isPresent());
        // One commit per write, or per group of writes that queued together (group commit).
        long commits = outcomes.stream().map(o -> o.commit().orElseThrow().id()).distinct().count();
        assertThat(rows(graph, "node:Note")).hasSize(16);
        assertThat(graph.commits("main").collectList().block()).hasSize(1 + (int) commits);
    }

    @Test
    void concurrentStrictUpdatesNeverLoseAnUpdate() {
        mutate("addPerson", "name", "Ada", "age", 0);
        int commitsBefore = graph.commits("main").collectList().block().size();
        List<Object> outcomes = Flux.range(1, 8)
                .flatMap(i -> run("setAge", "name", "Ada", "age", i).<Object>map(o -> o)
                        .onErrorResume(ReadSetChanged.class, Mono::just), 8)
                .collectList().block(Duration.ofSeconds(60));
        // Queued on the branch, each is planned on the head it publishes on: none fails, none is lost.
        assertThat(outcomes).hasSize(8).allSatisfy(outcome -> assertThat(outcome).isInstanceOf(WriteOutcome.class));
        long commits = outcomes.stream().map(o -> ((WriteOutcome) o).commit().orElseThrow().id()).distinct().count();
        assertThat(graph.commits("main").collectList().block()).hasSize(commitsBefore + (int) commits);
        assertThat(rows(graph, "node:Person")).hasSize(1);
    }

    @Test
    void conditionalMutationsCheckTheHead() {
        WriteOutcome first = mutate("addNote", "text", "a");
        String head = first.commit().orElseThrow().id();
        WriteOutcome second = graph.mutate("main", QUERIES, "addNote", Map.of("text", "b"),
                WriteOptions.DEFAULT.ifGraphCommit(head)).block();
        assertThat(second.commit()).isPresent();
        Map<String, Long> before = versions(graph);
        assertThatThrownBy(() -> graph.mutate("main", QUERIES, "addNote", Map.of("text", "c"),
                WriteOptions.DEFAULT.ifGraphCommit(head)).block())
                .isInstanceOfSatisfying(PreconditionFailed.class, e -> {
                    assertThat(e.expected()).isEqualTo(head);
                    assertThat(e.actual()).isEqualTo(second.commit().orElseThrow().id());
                });
        assertThat(versions(graph)).isEqualTo(before);
    }

    @Test
    void limitsAndReadOnlyHandlesRefuseBeforeAnyEffect() {
        graph.withLimits(new WriteLimits(1, 1 << 20));
        Map<String, Long> before = versions(graph);
        assertThatThrownBy(() -> mutate("addPair", "a", "Ada", "b", "Bob")).isInstanceOf(ResourceLimitExceeded.class);
        graph.withLimits(WriteLimits.DEFAULT);
        Omnigraph readOnly = Omnigraph.open(services, graph.root(), OpenMode.READ_ONLY).block();
        assertThatThrownBy(() -> readOnly.mutate("main", QUERIES, "addNote", Map.of("text", "x"), WriteOptions.DEFAULT).block())
                .isInstanceOf(BadRequest.class).hasMessageContaining("read-only");
        assertThat(versions(graph)).isEqualTo(before);
    }

    @Test
    void cancellingBeforeArmingLeavesNothingAtEveryPhase() {
        // An insert arms beside staging, right after the recheck (after_gates): holding the recheck at after_gates
        // keeps the arm from overtaking a cancel that arrives while staging is parked at after_prepare.
        for (List<String> held : List.of(List.of("mutation.after_prepare", "mutation.after_gates"),
                List.of("mutation.after_gates"))) {
            Map<String, Long> before = versions(graph);
            List<Failpoints.Parked> parked = held.stream().map(graph.failpoints()::park).toList();
            Failpoints.Parked settled = graph.failpoints().park("mutation.after_attempt");
            Disposable write = run("addNote", "text", "x").subscribe();
            parked.forEach(point -> point.reached().block());
            write.dispose();
            parked.forEach(Failpoints.Parked::release);
            settled.reached().block(); // the detached write ended: gates released, staged work discarded
            settled.release();
            held.forEach(graph.failpoints()::disarm);
            graph.failpoints().disarm("mutation.after_attempt");
            assertThat(versions(graph)).as(held.toString()).isEqualTo(before);
            assertThat(graph.sidecars().list().collectList().block()).as(held.toString()).isEmpty();
            assertThat(graph.gates().allIdle()).as(held.toString()).isTrue();
        }
        assertThat(mutate("addNote", "text", "after").commit()).isPresent();
    }

    @Test
    void aCancelWhileStagingThatLandsAfterTheArmRunsTheWriteToItsEnd() {
        // The arm runs beside staging: armed (after_arm passed) while staging is still parked at after_prepare. A
        // first note makes the table indexed, so this write is one transaction (a write that builds a missing index
        // declares a chain, and a chain arms after staging).
        run("addNote", "text", "first").block();
        int notes = rows(graph, "node:Note").size();
        Failpoints.Parked staged = graph.failpoints().park("mutation.after_prepare");
        Failpoints.Parked armed = graph.failpoints().park("mutation.after_arm");
        Failpoints.Parked settled = graph.failpoints().park("mutation.after_attempt");
        Disposable write = run("addNote", "text", "armed while staging").subscribe();
        staged.reached().block();
        armed.reached().block();
        armed.release();
        write.dispose(); // after the arm: the write is no longer dropped
        staged.release();
        settled.reached().block();
        settled.release();
        List.of("mutation.after_prepare", "mutation.after_arm", "mutation.after_attempt").forEach(graph.failpoints()::disarm);
        assertThat(rows(graph, "node:Note")).hasSize(notes + 1);
        assertThat(graph.sidecars().list().collectList().block()).isEmpty();
        assertThat(graph.gates().allIdle()).isTrue();
    }

    @Test
    void cancellingAfterArmingNeverAbandonsTheWriteHalfWay() {
        for (String point : List.of("mutation.after_arm", "mutation.after_commit:1", "mutation.after_confirm",
                "mutation.after_publish")) {
            int notes = rows(graph, "node:Note").size();
            Failpoints.Parked parked = graph.failpoints().park(point);
            Failpoints.Parked settled = graph.failpoints().park("mutation.after_attempt");
            Disposable write = run("addNote", "text", point).subscribe();
            parked.reached().block();
            write.dispose();
            parked.release();
            settled.reached().block(); // the detached write ended: gates released, staged work discarded
            settled.release();
            graph.failpoints().disarm(point);
            graph.failpoints().disarm("mutation.after_attempt");
            assertThat(rows(graph, "node:Note")).as(point).hasSize(notes + 1);
            assertThat(graph.sidecars().list().collectList().block()).as(point).isEmpty();
            assertThat(graph.gates().allIdle()).as(point).isTrue();
        }
    }
}
