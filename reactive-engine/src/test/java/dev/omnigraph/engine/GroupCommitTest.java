package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.params;
import static dev.omnigraph.engine.GraphTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.error.PreconditionFailed;
import dev.omnigraph.storage.error.ValidationError;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * Writes that queue on one branch while it is busy are published as one group: one commit, one sidecar, each
 * write planned and validated on top of the writes before it, a failing write failing alone, preconditions and
 * idempotency keys kept per write. The test makes a group deterministically by holding the branch gate while the
 * writes are submitted (an unkeyed mutation reaches its queue synchronously on subscription).
 */
class GroupCommitTest extends ConstrainedGraphTest {
    static final String QUERIES = """
            query addPerson($name: String, $age: I32?) { insert Person { name: $name, age: $age } }
            query addNote($text: String) { insert Note { text: $text } }
            query knows($a: String, $b: String) { insert Knows { from: $a, to: $b } }
            query setAge($name: String, $age: I32) { update Person set { age: $age } where name = $name }
            query setEmail($name: String, $email: String) { update Person set { email: $email } where name = $name }
            """;


    @BeforeEach
    void seed() {
        mutate(WriteOptions.DEFAULT, "addPerson", "name", "Ada").block(Duration.ofSeconds(60));
        mutate(WriteOptions.DEFAULT, "addPerson", "name", "Bob").block(Duration.ofSeconds(60));
    }

    Mono<WriteOutcome> mutate(WriteOptions options, String query, Object... keyValues) {
        return graph.mutate("main", QUERIES, query, params(keyValues), options);
    }

    Supplier<Mono<WriteOutcome>> write(String query, Object... keyValues) {
        return () -> mutate(WriteOptions.DEFAULT, query, keyValues);
    }

    /** Submits every write while main's branch gate is held, so one queue turn takes them all. */
    @SafeVarargs
    final List<CompletableFuture<WriteOutcome>> queuedTogether(Supplier<Mono<WriteOutcome>>... writes) {
        Permit held = graph.gates().forBranch("main").block(Duration.ofSeconds(60));
        List<CompletableFuture<WriteOutcome>> futures = new ArrayList<>();
        try {
            for (Supplier<Mono<WriteOutcome>> write : writes) {
                futures.add(write.get().toFuture());
            }
        } finally {
            held.release();
        }
        return futures;
    }

    static GraphCommit commitOf(CompletableFuture<WriteOutcome> future) {
        return future.join().commit().orElseThrow();
    }

    static Throwable failureOf(CompletableFuture<WriteOutcome> future) {
        try {
            future.join();
        } catch (CompletionException failed) {
            return failed.getCause();
        }
        throw new AssertionError("expected the write to fail, it committed " + future.join());
    }

    String head() {
        return graph.snapshot(ReadTarget.main()).block().graphCommitId().orElseThrow();
    }

    @Test
    void writesQueuedTogetherShareOneCommitAndEachSeesTheWritesBeforeIt() {
        String before = head();
        int commitsBefore = graph.commits("main").collectList().block().size();
        List<CompletableFuture<WriteOutcome>> futures = queuedTogether(
                write("addPerson", "name", "Yu", "age", 50),
                write("setAge", "name", "Yu", "age", 60),      // updates the row the write before it inserted
                write("knows", "a", "Yu", "b", "Ada"),         // its endpoint exists only in that write
                write("addNote", "text", "x"));
        GraphCommit commit = commitOf(futures.get(0));
        assertThat(futures).allSatisfy(future -> assertThat(commitOf(future).id()).isEqualTo(commit.id()));
        assertThat(commit.operation()).isEqualTo(
                "group of 4: mutation:addPerson; mutation:setAge; mutation:knows; mutation:addNote");
        assertThat(commit.parentIds()).containsExactly(before);
        assertThat(graph.commits("main").collectList().block()).hasSize(commitsBefore + 1);
        // Each write reports its own counts.
        assertThat(futures.get(1).join().affectedNodes()).isEqualTo(1);
        assertThat(futures.get(2).join().affectedEdges()).isEqualTo(1);
        assertThat(futures.get(2).join().affectedNodes()).isZero();
        // The acknowledged id is an exact time-travel point; the head before it has none of the group.
        assertThat(rows(graph, ReadTarget.commit(commit.id()), "node:Person"))
                .filteredOn(row -> "Yu".equals(row.get("id"))).singleElement()
                .satisfies(row -> assertThat(row).containsEntry("age", 60));
        assertThat(rows(graph, ReadTarget.commit(commit.id()), "edge:Knows")).hasSize(1);
        assertThat(rows(graph, ReadTarget.commit(before), "node:Person")).hasSize(2);
        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
    }

    @Test
    void aWriteThatFailsValidationInAGroupFailsAloneAndTheOthersCommit() {
        List<CompletableFuture<WriteOutcome>> futures = queuedTogether(
                write("setEmail", "name", "Ada", "email", "same@x"),
                write("setEmail", "name", "Bob", "email", "same@x"), // @unique against the write before it
                write("addPerson", "name", "B4d"),                   // @check
                write("knows", "a", "Ada", "b", "Nobody"),           // no such endpoint
                write("knows", "a", "Ada", "b", "Bob"));
        assertThat(failureOf(futures.get(1))).isInstanceOf(ValidationError.class);
        assertThat(failureOf(futures.get(2))).isInstanceOf(ValidationError.class);
        assertThat(failureOf(futures.get(3))).isInstanceOf(ValidationError.class);
        GraphCommit commit = commitOf(futures.get(0));
        assertThat(commitOf(futures.get(4)).id()).isEqualTo(commit.id());
        assertThat(commit.operation()).isEqualTo("group of 2: mutation:setEmail; mutation:knows");
        assertThat(rows(graph, "node:Person")).extracting(row -> row.get("email")).containsExactlyInAnyOrder("same@x", null);
        assertThat(rows(graph, "node:Person")).hasSize(2);
        assertThat(rows(graph, "edge:Knows")).hasSize(1);
    }

    @Test
    void aConditionalWriteLeadsItsGroupAndKeepsItsPrecondition() {
        String head = head();
        WriteOptions onHead = WriteOptions.DEFAULT.ifGraphCommit(head);
        List<CompletableFuture<WriteOutcome>> first = queuedTogether(
                () -> mutate(onHead, "addNote", "text", "conditional"),
                write("addNote", "text", "plain"));
        GraphCommit group = commitOf(first.get(0));
        assertThat(commitOf(first.get(1)).id()).isEqualTo(group.id());
        assertThat(group.parentIds()).containsExactly(head);

        // Stale now: it fails alone, the write queued behind it commits.
        List<CompletableFuture<WriteOutcome>> stale = queuedTogether(
                () -> mutate(onHead, "addNote", "text", "stale"),
                write("addNote", "text", "after stale"));
        assertThat(failureOf(stale.get(0))).isInstanceOfSatisfying(PreconditionFailed.class, e -> {
            assertThat(e.expected()).isEqualTo(head);
            assertThat(e.actual()).isEqualTo(group.id());
        });
        String afterStale = commitOf(stale.get(1)).id();

        // Behind another write it cannot join that write's commit: it is checked against the head that write made.
        WriteOptions onAfterStale = WriteOptions.DEFAULT.ifGraphCommit(afterStale);
        List<CompletableFuture<WriteOutcome>> behind = queuedTogether(
                write("addNote", "text", "ahead"),
                () -> mutate(onAfterStale, "addNote", "text", "behind"));
        String ahead = commitOf(behind.get(0)).id();
        assertThat(failureOf(behind.get(1))).isInstanceOfSatisfying(PreconditionFailed.class,
                e -> assertThat(e.actual()).isEqualTo(ahead));
        assertThat(rows(graph, "node:Note")).extracting(row -> row.get("text"))
                .containsExactlyInAnyOrder("conditional", "plain", "after stale", "ahead");
    }

    @Test
    void idempotencyKeysStillRecordPerWrite() {
        mutate(WriteOptions.DEFAULT.idempotencyKey("warm"), "addNote", "text", "warm").block(Duration.ofSeconds(60));
        List<CompletableFuture<WriteOutcome>> futures = queuedTogether(
                () -> mutate(WriteOptions.DEFAULT.idempotencyKey("k1"), "addNote", "text", "one"),
                write("addPerson", "name", "Cy"),
                () -> mutate(WriteOptions.DEFAULT.idempotencyKey("k2"), "knows", "a", "Ada", "b", "Bob"));
        GraphCommit first = commitOf(futures.get(0));
        assertThat(commitOf(futures.get(1)).id()).as("a plain write joins a keyed one").isEqualTo(first.id());
        GraphCommit second = commitOf(futures.get(2));
        assertThat(second.id()).as("one commit row records one key").isNotEqualTo(first.id());

        WriteOutcome replayOne = mutate(WriteOptions.DEFAULT.idempotencyKey("k1"), "addNote", "text", "one").block();
        assertThat(replayOne.replayed()).isTrue();
        assertThat(replayOne.commit().orElseThrow().id()).isEqualTo(first.id());
        assertThat(replayOne.affectedNodes()).isEqualTo(1);
        assertThat(replayOne.affectedEdges()).isZero();
        WriteOutcome replayTwo = mutate(WriteOptions.DEFAULT.idempotencyKey("k2"), "knows", "a", "Ada", "b", "Bob").block();
        assertThat(replayTwo.commit().orElseThrow().id()).isEqualTo(second.id());
        assertThat(replayTwo.affectedEdges()).isEqualTo(1);
        assertThat(rows(graph, "node:Note")).hasSize(2);
    }

    @Test
    void aWriteCancelledWhileQueuedLeavesNothingAndTheOthersCommit() {
        Permit held = graph.gates().forBranch("main").block(Duration.ofSeconds(60));
        CompletableFuture<WriteOutcome> one;
        CompletableFuture<WriteOutcome> three;
        try {
            one = mutate(WriteOptions.DEFAULT, "addNote", "text", "one").toFuture();
            Disposable cancelled = mutate(WriteOptions.DEFAULT, "addNote", "text", "cancelled").subscribe();
            three = mutate(WriteOptions.DEFAULT, "addNote", "text", "three").toFuture();
            cancelled.dispose();
        } finally {
            held.release();
        }
        assertThat(commitOf(one).id()).isEqualTo(commitOf(three).id());
        assertThat(commitOf(one).operation()).isEqualTo("group of 2: mutation:addNote; mutation:addNote");
        assertThat(rows(graph, "node:Note")).extracting(row -> row.get("text")).containsExactlyInAnyOrder("one", "three");
    }
}
