package dev.omnigraph.engine.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.manifest.ManifestState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** Pinned snapshots, time travel, backpressure and cancellation of query results. */
class ReadSnapshotTest extends SeededReadGraph {
    QueryResult run(ManifestState state, String source) {
        return ReadFixture.run(graph, services, state, source, Map.of());
    }

    List<Object> col(ManifestState state, String source) {
        return run(state, source).rows().map(r -> r.get(0)).collectList().block();
    }

    @Test
    void timeTravelReadsTheRowsOfAnOlderCommit() {
        String first = graph.snapshot(ReadTarget.main()).block().graphCommitId().orElseThrow();
        ReadFixture.load(graph, LoadMode.MERGE, List.of(
                "{\"type\":\"Person\",\"data\":{\"name\":\"Ann\",\"age\":31}}",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Gus\",\"age\":50}}",
                "{\"edge\":\"Knows\",\"from\":\"Fay\",\"to\":\"Gus\",\"data\":{\"id\":\"k8\"}}"));
        ManifestState old = graph.snapshot(ReadTarget.commit(first)).block().manifest();
        ManifestState now = ReadFixture.head(graph);
        String ages = "query q() { match { $p: Person  $p.age >= 30 } return { $p.name, $p.age } order { $p.name } }";
        assertThat(run(old, ages).rows().collectList().block()).containsExactly(
                List.of("Ann", 30), List.of("Cid", 35), List.of("Eve", 30), List.of("Fay", 40));
        assertThat(run(now, ages).rows().collectList().block()).containsExactly(
                List.of("Ann", 31), List.of("Cid", 35), List.of("Eve", 30), List.of("Fay", 40), List.of("Gus", 50));
        String fayKnows = "query q() { match { $p: Person { name: \"Fay\" }  $p knows $f } return { $f.name } }";
        assertThat(col(old, fayKnows)).isEmpty();
        assertThat(col(now, fayKnows)).containsExactly("Gus");
    }

    @Test
    void streamedScanHonoursDemand() {
        Flux<List<Object>> rows = run(ReadFixture.head(graph), "query q() { match { $p: Person } return { $p.name } }").rows();
        StepVerifier.create(rows, 0)
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(300))
                .thenRequest(1)
                .expectNextCount(1)
                .expectNoEvent(Duration.ofMillis(300))
                .thenRequest(2)
                .expectNextCount(2)
                .thenRequest(10)
                .expectNextCount(3)
                .verifyComplete();
    }

    @Test
    void materialisedResultHonoursDemand() {
        Flux<List<Object>> rows = run(ReadFixture.head(graph),
                "query q() { match { $p knows $f } return { $p.name, $f.name } order { $p.name, $f.name } }").rows();
        StepVerifier.create(rows, 0)
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(300))
                .thenRequest(1)
                .expectNext(List.of("Ann", "Bob"))
                .expectNoEvent(Duration.ofMillis(300))
                .thenRequest(1)
                .expectNext(List.of("Ann", "Cid"))
                .thenCancel()
                .verify();
    }

    @Test
    void readsPinnedToOneStateNeverMixCommits() {
        int writes = 6;
        AtomicBoolean done = new AtomicBoolean();
        Disposable writer = Flux.range(0, writes)
                .concatMap(i -> graph.load("main", LoadMode.APPEND, ReadFixture.ndjson(List.of(
                        "{\"type\":\"Person\",\"data\":{\"name\":\"W" + i + "\"}}",
                        "{\"edge\":\"Knows\",\"from\":\"Fay\",\"to\":\"W" + i + "\"}")), dev.omnigraph.engine.LoadOptions.DEFAULT))
                .doFinally(s -> done.set(true))
                .subscribeOn(Schedulers.boundedElastic())
                .subscribe();
        List<long[]> seen = new ArrayList<>();
        try {
            while (!done.get() || seen.size() < 3) {
                ManifestState state = ReadFixture.head(graph);
                long people = (Long) run(state, "query q() { match { $p: Person } return { count($p) } }").rows().blockFirst().get(0);
                long fay = (Long) run(state, "query q() { match { $p: Person { name: \"Fay\" }  $p $k:knows $f } return { count($f) } }")
                        .rows().blockFirst().get(0);
                seen.add(new long[] {people, fay});
            }
        } finally {
            writer.dispose();
        }
        // Each write adds one person and one edge from Fay: a consistent read has people - 6 == Fay's edges.
        assertThat(seen).allSatisfy(c -> assertThat(c[0] - 6).isEqualTo(c[1]));
        System.out.printf("pinned reads: %d reads saw %d distinct commits%n", seen.size(),
                seen.stream().mapToLong(c -> c[1]).distinct().count());
        assertThat(col(ReadFixture.head(graph), "query q() { match { $p: Person { name: \"Fay\" }  $p knows $f } return { count($f) } }"))
                .containsExactly((long) writes);
    }

    @Test
    void limitCancelsALargeScanEarly() {
        List<String> notes = IntStream.range(0, 8_000)
                .mapToObj(i -> "{\"type\":\"Note\",\"data\":{\"id\":\"m" + i + "\",\"text\":\"t" + (i % 10) + "\",\"stars\":" + i + "}}")
                .toList();
        ReadFixture.load(graph, LoadMode.APPEND, notes);
        ManifestState state = ReadFixture.head(graph);
        long t0 = System.nanoTime();
        assertThat(run(state, "query q() { match { $n: Note } return { $n.id } limit 3 }").rows().collectList().block()).hasSize(3);
        long limited = System.nanoTime() - t0;
        t0 = System.nanoTime();
        assertThat(run(state, "query q() { match { $n: Note  $n.stars >= 7990 } return { $n.id } }").rows().count().block())
                .isEqualTo(10L);
        long pushed = System.nanoTime() - t0;
        t0 = System.nanoTime();
        assertThat(run(state, "query q() { match { $n: Note } return { count($n) } }").rows().blockFirst()).containsExactly(8_001L);
        long full = System.nanoTime() - t0;
        t0 = System.nanoTime();
        assertThat(run(state, "query q() { match { $n: Note  $n.text = \"t3\" } return { $n.id } order { $n.stars desc } limit 2 }")
                .rows().collectList().block()).containsExactly(List.of("m7993"), List.of("m7983"));
        long ordered = System.nanoTime() - t0;
        System.out.printf("timings over 8k notes: limit 3 %.1f ms, pushed range %.1f ms, full count %.1f ms, order+limit %.1f ms%n",
                limited / 1e6, pushed / 1e6, full / 1e6, ordered / 1e6);
        // Cancelling mid-stream must release the scan (the storage close in tearDown checks for leaks).
        StepVerifier.create(run(state, "query q() { match { $n: Note } return { $n.text } }").rows(), 5)
                .expectNextCount(5)
                .thenCancel()
                .verify();
    }

    @Test
    void frontiersLargerThanOneInListAreBatched() {
        int n = 1_100; // a chain P0 -> P1 -> ... -> P1099: every scan below needs three IN lists
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < n; i++) lines.add("{\"type\":\"Person\",\"data\":{\"name\":\"P" + i + "\"}}");
        for (int i = 0; i + 1 < n; i++) lines.add("{\"edge\":\"Knows\",\"from\":\"P" + i + "\",\"to\":\"P" + (i + 1) + "\"}");
        ReadFixture.load(graph, LoadMode.APPEND, lines);
        ManifestState state = ReadFixture.head(graph);
        // Undirected with an edge binding: each edge once per orientation (the fixture adds 6 edges twice and
        // Eve's self-loop once), even when its two ends fall into different IN lists.
        assertThat(col(state, "query q() { match { $p: Person  $p $k:<knows> $q } return { count($q) } }"))
                .containsExactly(2L * (n - 1) + 13);
        // Up to three hops along the chain: 3 targets per start except the last three; the fixture adds 13.
        assertThat(col(state, "query q() { match { $p: Person  $p knows {1, 3} $q } return { count($q) } }"))
                .containsExactly(3L * (n - 3) + 2 + 1 + 13);
        assertThat(col(state, "query q() { match { $p knows {3, 3} $q  $q.name = \"P1099\" } return { $p.name } }"))
                .containsExactly("P1096");
    }

    @Test
    void badParameterValuesFailBeforeAnyRead() {
        assertThatThrownBy(() -> ReadFixture.run(graph, services, ReadFixture.head(graph),
                "query q($a: I64) { match { $p: Person { age: $a } } return { $p.name } }", Map.of("a", 1L << 40)))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("$a");
    }
}
