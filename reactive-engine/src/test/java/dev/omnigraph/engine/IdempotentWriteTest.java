package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.CONSTRAINED;
import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static dev.omnigraph.engine.GraphTestSupport.rows;
import static dev.omnigraph.engine.GraphTestSupport.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.write.IdempotencyIndex;
import dev.omnigraph.engine.write.IdempotencySettings;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.IdempotencyKeyReused;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Idempotency keys on real Lance: one commit per key and request, replayed outcomes, 422 on reuse, expiry. */
class IdempotentWriteTest {
    static final String QUERIES = """
            query addNote($text: String) { insert Note { text: $text } }
            query addPerson($name: String) { insert Person { name: $name } }
            """;
    static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;
    StorageServices services;
    Omnigraph graph;
    final dev.omnigraph.storage.testing.TestClock clock = dev.omnigraph.storage.testing.TestClock.startingNow();

    @BeforeEach
    void setUp() {
        services = EngineFixture.services();
        graph = Omnigraph.init(services, dir.resolve("g"), CONSTRAINED).block(WAIT)
                .withIdempotency(new IdempotencySettings(Duration.ofHours(24), clock));
    }

    @AfterEach
    void tearDown() {
        assertThat(graph.gates().allIdle()).as("no gate left held").isTrue();
        EngineFixture.close(services);
    }

    Mono<WriteOutcome> note(String text, String key) {
        return graph.mutate("main", QUERIES, "addNote", Map.of("text", text), WriteOptions.DEFAULT.idempotencyKey(key));
    }

    int commitCount() {
        return graph.commits("main").collectList().block(WAIT).size();
    }

    @Test
    void sameKeyTwiceWritesOnceAndAnswersTheFirstOutcome() {
        int before = commitCount();
        WriteOutcome first = note("hello", "k-1").block(WAIT);
        WriteOutcome second = note("hello", "k-1").block(WAIT);

        assertThat(first.replayed()).isFalse();
        assertThat(second.replayed()).isTrue();
        assertThat(second.commit().map(GraphCommit::id)).isEqualTo(first.commit().map(GraphCommit::id));
        assertThat(second.affectedNodes()).isEqualTo(first.affectedNodes()).isEqualTo(1);
        assertThat(commitCount()).isEqualTo(before + 1);
        assertThat(rows(graph, "node:Note")).hasSize(1);
    }

    @Test
    void theRecordIsDurableOnTheCommitRow() {
        WriteOutcome first = note("hello", "k-durable").block(WAIT);
        // What a new process sees: no in-memory index, only the manifest.
        IdempotencyIndex.forgetRoot(graph.root().toString());
        Omnigraph reopened = Omnigraph.open(services, graph.root(), OpenMode.READ_WRITE).block(WAIT)
                .withIdempotency(graph.idempotency());

        WriteOutcome retry = reopened.mutate("main", QUERIES, "addNote", Map.of("text", "hello"),
                WriteOptions.DEFAULT.idempotencyKey("k-durable")).block(WAIT);

        assertThat(retry.replayed()).isTrue();
        assertThat(retry.commit().map(GraphCommit::id)).isEqualTo(first.commit().map(GraphCommit::id));
        assertThat(rows(graph, "node:Note")).hasSize(1);
    }

    @Test
    void sameKeyWithAnotherRequestIsRefusedAndWritesNothing() {
        WriteOutcome first = note("hello", "k-2").block(WAIT);
        Map<String, Long> before = versions(graph);

        assertThatThrownBy(() -> note("other text", "k-2").block(WAIT))
                .isInstanceOfSatisfying(IdempotencyKeyReused.class, reused -> {
                    assertThat(reused.key()).isEqualTo("k-2");
                    assertThat(reused.graphCommitId()).isEqualTo(first.commit().map(GraphCommit::id));
                    assertThat(reused.code().httpStatus()).isEqualTo(422);
                });
        assertThatThrownBy(() -> graph.mutate("main", QUERIES, "addPerson", Map.of("name", "Ada"),
                WriteOptions.DEFAULT.idempotencyKey("k-2")).block(WAIT)).isInstanceOf(IdempotencyKeyReused.class);
        assertThatThrownBy(() -> graph.load("main", LoadMode.MERGE, ndjson("{\"type\":\"Note\",\"data\":{\"text\":\"x\"}}"),
                LoadOptions.DEFAULT.idempotencyKey("k-2")).block(WAIT)).isInstanceOf(IdempotencyKeyReused.class);
        assertThat(versions(graph)).isEqualTo(before);
    }

    @Test
    void loadsHashTheirBytesHoweverTheyAreChunked() {
        String input = "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}\n{\"type\":\"Note\",\"data\":{\"text\":\"n\"}}\n";
        byte[] bytes = input.getBytes(StandardCharsets.UTF_8);
        LoadOptions keyed = LoadOptions.DEFAULT.idempotencyKey("load-1");
        int before = commitCount();

        WriteOutcome first = graph.load("main", LoadMode.APPEND, Flux.just(ByteBuffer.wrap(bytes)), keyed).block(WAIT);
        // The same bytes in other chunks are the same request: an append that would now conflict replays instead.
        Flux<ByteBuffer> split = Flux.just(ByteBuffer.wrap(bytes, 0, 7).slice(), ByteBuffer.wrap(bytes, 7, bytes.length - 7).slice());
        WriteOutcome retry = graph.load("main", LoadMode.APPEND, split, keyed).block(WAIT);

        assertThat(retry.replayed()).isTrue();
        assertThat(retry.commit().map(GraphCommit::id)).isEqualTo(first.commit().map(GraphCommit::id));
        assertThat(retry.affectedNodes()).isEqualTo(2);
        assertThat(commitCount()).isEqualTo(before + 1);

        Map<String, Long> unchanged = versions(graph);
        assertThatThrownBy(() -> graph.load("main", LoadMode.MERGE, Flux.just(ByteBuffer.wrap(bytes)), keyed).block(WAIT))
                .as("another mode is another request").isInstanceOf(IdempotencyKeyReused.class);
        assertThatThrownBy(() -> graph.load("main", LoadMode.APPEND,
                ndjson("{\"type\":\"Person\",\"data\":{\"name\":\"Bob\"}}"), keyed).block(WAIT))
                .as("other bytes are another request").isInstanceOf(IdempotencyKeyReused.class);
        assertThat(versions(graph)).isEqualTo(unchanged);
    }

    @Test
    void concurrentDuplicatesWriteOnceAndAllAnswerItsOutcome() throws InterruptedException {
        note("prime", "prime").block(WAIT); // the index is built: claims now run on the subscribing thread
        int before = commitCount();
        Permit held = graph.gates().forWrite("main", new TreeSet<>(List.of("node:Note"))).block(WAIT);
        int duplicates = 4;
        CountDownLatch done = new CountDownLatch(duplicates);
        List<WriteOutcome> outcomes = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try {
            for (int i = 0; i < duplicates; i++) {
                note("once", "dup").subscribe(outcomes::add, error -> {
                    failure.set(error);
                    done.countDown();
                }, done::countDown);
            }
            // Every duplicate has claimed (one leads, the rest wait); the leader is parked on the held gate.
            assertThat(outcomes).isEmpty();
        } finally {
            held.release();
        }
        assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(failure.get()).isNull();
        assertThat(outcomes).hasSize(duplicates);
        assertThat(outcomes.stream().map(o -> o.commit().orElseThrow().id()).distinct()).hasSize(1);
        assertThat(outcomes.stream().filter(o -> !o.replayed())).hasSize(1);
        assertThat(commitCount()).isEqualTo(before + 1);
        assertThat(rows(graph, "node:Note").stream().filter(r -> "once".equals(r.get("text")))).hasSize(1);
    }

    @Test
    void aLeaderCancelledBeforeArmingRecordsNothingAndItsDuplicateWrites() throws InterruptedException {
        note("prime", "prime").block(WAIT);
        int before = commitCount();
        Permit held = graph.gates().forWrite("main", new TreeSet<>(List.of("node:Note"))).block(WAIT);
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<WriteOutcome> waiter = new AtomicReference<>();
        try {
            Disposable leader = note("cancelled", "cx").subscribe();
            note("cancelled", "cx").subscribe(waiter::set, error -> done.countDown(), done::countDown);
            leader.dispose(); // before the leader armed: it stops at the gate and records nothing
        } finally {
            held.release();
        }
        assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(waiter.get()).as("the duplicate ran itself").isNotNull();
        assertThat(waiter.get().replayed()).isFalse();
        assertThat(commitCount()).isEqualTo(before + 1);
        assertThat(note("cancelled", "cx").block(WAIT).commit()).isEqualTo(waiter.get().commit());
    }

    @Test
    void aFailedFirstAttemptRecordsNothingAndItsRetryRuns() {
        graph.failpoints().arm("mutation.after_gates", new Failpoints.Action.Error());
        assertThatThrownBy(() -> note("retry me", "k-fail").block(WAIT)).isNotInstanceOf(IdempotencyKeyReused.class);
        graph.failpoints().disarm("mutation.after_gates");

        WriteOutcome retry = note("retry me", "k-fail").block(WAIT);
        assertThat(retry.replayed()).isFalse();
        assertThat(retry.commit()).isPresent();
        assertThat(note("retry me", "k-fail").block(WAIT).replayed()).isTrue();
    }

    @Test
    void aKeyedWriteFinishedByItsCompensationKeepsItsRecord() {
        // The write fails after its publish: the writer's compensation finds the commit and finishes forward.
        graph.failpoints().arm("mutation.after_publish", new Failpoints.Action.Error());
        WriteOutcome first = note("forward", "k-forward").block(WAIT);
        graph.failpoints().disarm("mutation.after_publish");
        assertThat(first.commit()).isPresent();
        IdempotencyIndex.forgetRoot(graph.root().toString());

        WriteOutcome retry = note("forward", "k-forward").block(WAIT);
        assertThat(retry.replayed()).isTrue();
        assertThat(retry.commit().map(GraphCommit::id)).isEqualTo(first.commit().map(GraphCommit::id));
        assertThat(rows(graph, "node:Note")).hasSize(1);
    }

    @Test
    void aRetryOfAConditionalWriteReplaysInsteadOfFailingItsPrecondition() {
        String head = graph.snapshot(ReadTarget.main()).block(WAIT).graphCommitId().orElseThrow();
        WriteOptions conditional = WriteOptions.DEFAULT.ifGraphCommit(head).idempotencyKey("k-cond");
        WriteOutcome first = graph.mutate("main", QUERIES, "addNote", Map.of("text", "c"), conditional).block(WAIT);
        WriteOutcome retry = graph.mutate("main", QUERIES, "addNote", Map.of("text", "c"), conditional).block(WAIT);
        assertThat(retry.replayed()).isTrue();
        assertThat(retry.commit()).isEqualTo(first.commit());
    }

    @Test
    void keysExpireAfterTheWindow() {
        WriteOutcome first = note("old", "k-exp").block(WAIT);
        clock.advance(Duration.ofHours(23));
        assertThat(note("old", "k-exp").block(WAIT).replayed()).isTrue();

        clock.advance(Duration.ofHours(2));
        WriteOutcome again = note("old", "k-exp").block(WAIT);
        assertThat(again.replayed()).as("an expired key is simply not matched").isFalse();
        assertThat(again.commit()).isNotEqualTo(first.commit());
        assertThat(note("new text", "k-other").block(WAIT).commit()).isPresent();
        assertThat(rows(graph, "node:Note")).hasSize(3);
    }

    @Test
    void badKeysAreRefusedBeforeAnyWork() {
        Map<String, Long> before = versions(graph);
        for (String bad : List.of("", "x".repeat(256), "caf\u00e9", "line\nbreak", "tab\tkey")) {
            assertThatThrownBy(() -> note("n", bad).block(WAIT)).isInstanceOf(BadRequest.class)
                    .hasMessageContaining("idempotency key");
            assertThatThrownBy(() -> graph.load("main", LoadMode.MERGE, ndjson("{\"type\":\"Note\",\"data\":{\"text\":\"x\"}}"),
                    LoadOptions.DEFAULT.idempotencyKey(bad)).block(WAIT)).isInstanceOf(BadRequest.class);
        }
        assertThat(versions(graph)).isEqualTo(before);
        assertThat(note("n", "x".repeat(255)).block(WAIT).commit()).isPresent();
    }
}
