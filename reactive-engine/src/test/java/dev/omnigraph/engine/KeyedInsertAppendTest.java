package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static dev.omnigraph.engine.GraphTestSupport.params;
import static dev.omnigraph.engine.GraphTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.TableRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A keyed insert whose key the handle's kept key set proves absent at the pinned version is staged as a plain
 * append (no key scan); every other keyed insert stays an upsert by its key. Whatever published in between — the
 * same key in one group, another handle, a delete, a load, a branch merge — a key is never held twice.
 */
class KeyedInsertAppendTest extends ConstrainedGraphTest {
    static final String QUERIES = """
            query add($name: String, $age: I32) { insert Person { name: $name, age: $age } }
            query remove($name: String) { delete Person where name = $name }
            query note($t: String) { insert Note { text: $t } }
            """;
    static final Duration WAIT = Duration.ofSeconds(60);

    WriteOutcome add(Omnigraph handle, String branch, String name, int age) {
        return handle.mutate(branch, QUERIES, "add", params("name", name, "age", age), WriteOptions.DEFAULT).block(WAIT);
    }

    WriteOutcome add(String name, int age) {
        return add(graph, "main", name, age);
    }

    /** Person's rows on main as name=age, sorted: a key held twice shows up twice. */
    List<String> persons() {
        return rows(graph, "node:Person").stream().map(row -> row.get("name") + "=" + row.get("age")).sorted().toList();
    }

    long personVersion() {
        return GraphTestSupport.versions(graph).get("node:Person");
    }

    /** The Lance operations that made Person's versions after {@code after} on main. */
    List<String> personOperationsSince(long after) {
        var table = graph.snapshot(ReadTarget.main()).block(WAIT).table("node:Person").orElseThrow();
        TableRef ref = new TableRef(graph.root().resolve(table.path()).toString(), table.lanceBranch());
        return graph.services().tables().operationsBetween(ref, after, table.version()).block(WAIT);
    }

    @Test
    void aNewKeyIsAppendedAndAHeldKeyIsStillReplaced() {
        add("Ada", 1); // learns Person's (empty) ids, then carries Ada
        long before = personVersion();
        add("Bob", 2);
        assertThat(personOperationsSince(before)).containsExactly("Append");

        before = personVersion();
        add("Ada", 3); // held: an upsert replaces the row
        assertThat(personOperationsSince(before)).doesNotContain("Append").hasSize(1);
        assertThat(persons()).containsExactly("Ada=3", "Bob=2");
    }

    @Test
    void theSameKeyInOneGroupIsHeldOnceAndTheLastWriteWins() {
        add("Ada", 1);
        Permit held = graph.gates().forBranch("main").block(WAIT);
        List<CompletableFuture<WriteOutcome>> futures = new ArrayList<>();
        try {
            for (int age : new int[] {2, 3, 4}) {
                futures.add(graph.mutate("main", QUERIES, "add", params("name", "Yu", "age", age), WriteOptions.DEFAULT)
                        .toFuture());
            }
            futures.add(graph.mutate("main", QUERIES, "add", params("name", "Ada", "age", 5), WriteOptions.DEFAULT)
                    .toFuture());
        } finally {
            held.release();
        }
        assertThat(futures.stream().map(future -> future.join().commit().orElseThrow().id()).distinct()).hasSize(1);
        assertThat(persons()).containsExactly("Ada=5", "Yu=4");
        // The group's union (not one member's plan) was carried: Yu is known held now.
        add("Yu", 6);
        add("Zed", 7);
        assertThat(persons()).containsExactly("Ada=5", "Yu=6", "Zed=7");
    }

    @Test
    void aKeyAnotherHandleInsertedIsReplacedNotAppended() {
        add("Ada", 1);
        add("Bob", 2); // this handle's set now holds Ada and Bob at Person's version
        try (Omnigraph other = Omnigraph.open(services, dir.resolve("g"), OpenMode.READ_WRITE).block(WAIT)) {
            add(other, "main", "Cy", 3);
            add(other, "main", "Ada", 4);
        }
        add("Cy", 5); // planned on the kept state first (no Cy), then on the live head, where Cy is held
        add("Dee", 6);
        try (Omnigraph other = Omnigraph.open(services, dir.resolve("g"), OpenMode.READ_WRITE).block(WAIT)) {
            add(other, "main", "Dee", 7);
            add(other, "main", "Bob", 8);
        }
        add("Bob", 9);
        assertThat(persons()).containsExactly("Ada=4", "Bob=9", "Cy=5", "Dee=7");
    }

    @Test
    void aDeletedKeyInsertedAgainIsHeldOnce() {
        add("Ada", 1);
        add("Bob", 2);
        graph.mutate("main", QUERIES, "remove", params("name", "Ada"), WriteOptions.DEFAULT).block(WAIT);
        add("Ada", 3);
        add("Ada", 4);
        graph.mutate("main", QUERIES, "remove", params("name", "Bob"), WriteOptions.DEFAULT).block(WAIT);
        add("Bob", 5);
        add("Cy", 6);
        add("Bob", 7);
        assertThat(persons()).containsExactly("Ada=4", "Bob=7", "Cy=6");
    }

    @Test
    void keysALoadOrAMergeAddedAreReplacedNotAppended() {
        add("Ada", 1);
        graph.load("main", LoadMode.MERGE, ndjson("{\"type\":\"Person\",\"data\":{\"name\":\"Dan\",\"age\":10}}",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":11}}"), LoadOptions.DEFAULT).block(WAIT);
        add("Dan", 12);
        graph.load("main", LoadMode.APPEND, ndjson("{\"type\":\"Person\",\"data\":{\"name\":\"Eve\",\"age\":13}}"),
                LoadOptions.DEFAULT).block(WAIT);
        add("Eve", 14);

        graph.createBranch("side", Optional.empty()).block(WAIT);
        add(graph, "side", "Fay", 15);
        add(graph, "side", "Gus", 16);
        add("Ada", 17); // main moves too: a three-way merge
        graph.mergeBranch("side", "main", false, Optional.empty()).block(WAIT);
        add("Fay", 18);
        add("Gus", 19);
        add("Hal", 20);
        assertThat(persons()).containsExactly("Ada=17", "Dan=12", "Eve=14", "Fay=18", "Gus=19", "Hal=20");
        assertThat(rows(graph, ReadTarget.branch("side"), "node:Person").stream().map(row -> (String) row.get("name"))
                .collect(Collectors.toList())).containsExactlyInAnyOrder("Ada", "Dan", "Eve", "Fay", "Gus");
    }

    @Test
    void unkeyedWritesBetweenKeepTheSetAndItsAnswers() {
        add("Ada", 1);
        graph.mutate("main", QUERIES, "note", Map.of("t", "x"), WriteOptions.DEFAULT).block(WAIT);
        long before = personVersion();
        add("Bob", 2); // Person did not move: the set carried by Ada's insert still answers
        assertThat(personOperationsSince(before)).containsExactly("Append");
        add("Ada", 3);
        assertThat(persons()).containsExactly("Ada=3", "Bob=2");
    }

    @Test
    void twoHandlesInsertingTheSameKeysAtOnceNeverHoldAKeyTwice() {
        add("Ada", 1);
        try (Omnigraph other = Omnigraph.open(services, dir.resolve("g"), OpenMode.READ_WRITE).block(WAIT)) {
            add(other, "main", "Bob", 2); // both handles now keep a set for Person
            List<String> acknowledged = new ArrayList<>();
            for (int round = 0; round < 6; round++) {
                String key = "K" + (char) ('a' + round);
                List<Optional<String>> outcomes = reactor.core.publisher.Flux.merge(
                                attempt(graph, key, 10 + round), attempt(other, key, 20 + round))
                        .collectList().block(WAIT);
                outcomes.forEach(outcome -> outcome.ifPresent(acknowledged::add));
            }
            List<String> names = rows(graph, "node:Person").stream().map(row -> (String) row.get("name")).toList();
            assertThat(names).doesNotHaveDuplicates();
            // Every acknowledged key is there (the later of two acknowledged writes of a key wins).
            assertThat(names).containsAll(acknowledged.stream().map(ack -> ack.split("=")[0]).toList());
            assertThat(graph.pendingSidecars().collectList().block(WAIT)).isEmpty();
        }
    }

    /** One keyed insert; its key and age when acknowledged, empty when refused (a lost race may be refused). */
    reactor.core.publisher.Mono<Optional<String>> attempt(Omnigraph handle, String name, int age) {
        return handle.mutate("main", QUERIES, "add", params("name", name, "age", age), WriteOptions.DEFAULT)
                .map(outcome -> Optional.of(name + "=" + age))
                .onErrorResume(error -> reactor.core.publisher.Mono.just(Optional.empty()));
    }
}
