package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.diff.CommitChanges;
import dev.omnigraph.engine.diff.EntityChange;
import dev.omnigraph.engine.diff.FeedPage;
import dev.omnigraph.engine.diff.FeedStart;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.merge.MergeOutcome;
import dev.omnigraph.engine.merge.MergeResult;
import dev.omnigraph.storage.StorageCallCounter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * What a one-row change costs to read back, through the counting seam: {@code commit changes}, a feed poll and a
 * branch merge make the same storage calls, and read the same handful of rows, whether the table holds 2,000 rows
 * or 100,000. (Calls are deterministic; their time is the benchmarks' business.)
 */
class ChangeCostTest {
    static final Duration WAIT = Duration.ofSeconds(180);
    static final String QUERIES = """
            query setAge($name: String, $age: I32) { update Person set { age: $age } where name = $name }
            """;

    /** Loads per graph, the same for every size so both histories are equally deep (a load holds at most 8,192 of a type). */
    static final int LOADS = 13;

    /** Far below either table (2,000 rows): a diff that scanned the table would pass it at once. */
    static final long MAX_ROWS_READ = 64;

    @TempDir
    Path dir;

    /** The calls (by class) and rows scanned of each read-back, for one table size. */
    record Costs(Map<String, Long> commitChanges, Map<String, Long> poll, Map<String, Long> merge) {
    }

    @Test
    void aOneRowChangeCostsTheSameWhateverTheTableSize() {
        Costs small = measure(2_000);
        Costs large = measure(100_000);

        assertThat(calls(large.commitChanges())).as("commit changes: %s", large.commitChanges()).isEqualTo(calls(small.commitChanges()));
        assertThat(calls(large.poll())).as("feed poll: %s", large.poll()).isEqualTo(calls(small.poll()));
        assertThat(calls(large.merge())).as("merge: %s", large.merge()).isEqualTo(calls(small.merge()));
        // Rows delivered: the changed row's old and new images per diff, and __manifest rows (commits and table
        // entries, which depend on the history, not on the tables), never the table.
        for (Costs costs : List.of(small, large)) {
            assertThat(List.of(costs.commitChanges(), costs.poll(), costs.merge())).as("%s", costs)
                    .allSatisfy(delta -> assertThat(scannedRows(delta)).isLessThan(MAX_ROWS_READ));
        }
    }

    private Costs measure(int rows) {
        StorageCallCounter counter = new StorageCallCounter();
        StorageServices services = EngineFixture.countingServices(counter);
        try (Omnigraph graph = Omnigraph.at(dir.resolve("g" + rows)).services(services).init(EngineFixture.SOCIAL).block(WAIT)) {
            int chunk = (rows + LOADS - 1) / LOADS;
            for (int from = 0; from < rows; from += chunk) {
                graph.load("main", LoadMode.APPEND, persons(from, Math.min(rows, from + chunk)), LoadOptions.DEFAULT)
                        .block(WAIT);
            }
            graph.maintenance().optimize(MaintenanceOperations.Target.main()).block(WAIT); // few, large fragments
            graph.branches().create("feature").block(WAIT);
            String before = graph.commits("main").blockFirst(WAIT).id();
            String changed = setAge(graph, "main", "p00777", 99);
            setAge(graph, "feature", "p01234", 77);

            var start = counter.snapshot();
            CommitChanges page = graph.changes().commit(ChangeOperations.CommitPage.of(changed)).block(WAIT);
            var afterCommitChanges = counter.snapshot();
            FeedPage polled = graph.changes().poll(ChangeOperations.Poll.of("main", new FeedStart.After(before)))
                    .block(WAIT);
            var afterPoll = counter.snapshot();
            MergeResult merged = graph.branches().merge(BranchOperations.Merge.of("feature", "main")).block(WAIT);
            var afterMerge = counter.snapshot();

            assertThat(page.changes()).extracting(EntityChange::id).containsExactly("p00777");
            assertThat(polled.blocks()).flatExtracting(FeedPage.Block::changes).extracting(EntityChange::id)
                    .containsExactly("p00777");
            assertThat(merged.outcome()).isEqualTo(MergeOutcome.MERGED);
            assertThat(graph.query(ReadTarget.main(), "query a() { match { $p: Person { name: \"p01234\" } } return { $p.age } }",
                    "a", Map.of()).flatMapMany(QueryOutput::rows).collectList().block(WAIT)).containsExactly(List.of(77));
            return new Costs(StorageCallCounter.delta(start, afterCommitChanges),
                    StorageCallCounter.delta(afterCommitChanges, afterPoll), StorageCallCounter.delta(afterPoll, afterMerge));
        } finally {
            EngineFixture.close(services);
        }
    }

    private static String setAge(Omnigraph graph, String branch, String name, int age) {
        return graph.mutate(branch, QUERIES, "setAge", Map.of("name", name, "age", age), WriteOptions.DEFAULT).block(WAIT)
                .commit().orElseThrow().id();
    }

    private static Flux<ByteBuffer> persons(int from, int to) {
        List<ByteBuffer> lines = new ArrayList<>();
        StringBuilder chunk = new StringBuilder();
        for (int i = from; i < to; i++) {
            chunk.append(String.format("{\"type\":\"Person\",\"data\":{\"name\":\"p%05d\",\"age\":%d}}%n", i, i % 90));
            if (chunk.length() > 1 << 16) {
                lines.add(ByteBuffer.wrap(chunk.toString().getBytes(StandardCharsets.UTF_8)));
                chunk.setLength(0);
            }
        }
        lines.add(ByteBuffer.wrap(chunk.toString().getBytes(StandardCharsets.UTF_8)));
        return Flux.fromIterable(lines);
    }

    private static long calls(Map<String, Long> delta) {
        return StorageCallCounter.totalCalls(delta);
    }

    private static long scannedRows(Map<String, Long> delta) {
        return delta.getOrDefault(StorageCallCounter.Call.SCAN_ROWS.label(), 0L);
    }
}
