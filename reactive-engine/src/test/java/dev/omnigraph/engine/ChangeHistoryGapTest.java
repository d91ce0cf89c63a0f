package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.cleanup.CleanupOptions;
import dev.omnigraph.engine.cleanup.CleanupReport;
import dev.omnigraph.engine.diff.CommitChanges;
import dev.omnigraph.engine.diff.EntityChange;
import dev.omnigraph.engine.diff.FeedPage;
import dev.omnigraph.engine.diff.FeedStart;
import dev.omnigraph.engine.load.LoadMode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * A diff needs only its two end versions: with the table versions in between deleted by {@code cleanup} (a load's
 * data version before its index chunk, which no commit pins) and a compaction between two commits, commit changes and
 * the feed still answer exactly what each commit wrote.
 */
class ChangeHistoryGapTest {
    static final Duration WAIT = Duration.ofSeconds(120);
    static final String QUERIES = """
            query setAge($name: String, $age: I32) { update Person set { age: $age } where name = $name }
            query drop($name: String) { delete Person where name = $name }
            """;

    @TempDir
    Path dir;

    @Test
    void diffsStayExactWithIntermediateVersionsCleanedUpAndACompactionBetween() {
        StorageServices services = EngineFixture.services();
        try (Omnigraph graph = Omnigraph.at(dir.resolve("g")).services(services).init(EngineFixture.SOCIAL).block(WAIT)) {
            String genesis = graph.commits("main").blockFirst(WAIT).id();
            // 2,000 rows: the load commits its data, then folds them into indexes (a second table version).
            String load = graph.load("main", LoadMode.APPEND, persons(0, 2_000), LoadOptions.DEFAULT).block(WAIT)
                    .commit().orElseThrow().id();
            String update = mutate(graph, "setAge", Map.of("name", "p01500", "age", 99));
            String more = graph.load("main", LoadMode.APPEND, persons(2_000, 3_500), LoadOptions.DEFAULT).block(WAIT)
                    .commit().orElseThrow().id();
            graph.maintenance().optimize(MaintenanceOperations.Target.main()).block(WAIT); // rewrites the Person fragments
            String afterCompaction = mutate(graph, "setAge", Map.of("name", "p00007", "age", 98));
            String deleted = mutate(graph, "drop", Map.of("name", "p03000"));

            CleanupReport cleaned = graph.maintenance().cleanup(CleanupOptions.of(OptionalInt.of(100), Optional.empty(), true)).block(WAIT);
            assertThat(cleaned.tables()).as("versions no commit pins were deleted")
                    .anySatisfy(table -> assertThat(table.location()).startsWith("nodes/"));

            assertThat(changes(graph, load)).hasSize(2_000).allMatch(c -> c.startsWith("insert p"));
            assertThat(changes(graph, update)).containsExactly("update p01500 1500 -> 99");
            assertThat(changes(graph, more)).hasSize(1_500);
            assertThat(changes(graph, afterCompaction)).containsExactly("update p00007 7 -> 98");
            assertThat(changes(graph, deleted)).containsExactly("delete p03000 3000");

            List<String> fed = new ArrayList<>();
            FeedStart start = new FeedStart.After(genesis);
            FeedPage page;
            do {
                page = graph.changes().poll(ChangeOperations.Poll.of("main", start).limit(8_000)).block(WAIT);
                page.blocks().forEach(block -> block.changes().forEach(change -> fed.add(describe(change))));
                start = page.nextPageToken().<FeedStart>map(FeedStart.Page::new).orElse(start);
            } while (page.nextPageToken().isPresent());
            assertThat(fed).hasSize(2_000 + 1 + 1_500 + 1 + 1)
                    .contains("update p01500 1500 -> 99", "update p00007 7 -> 98", "delete p03000 3000");
        } finally {
            EngineFixture.close(services);
        }
    }

    private static String mutate(Omnigraph graph, String query, Map<String, Object> params) {
        return graph.mutate("main", QUERIES, query, params, WriteOptions.DEFAULT).block(WAIT).commit().orElseThrow().id();
    }

    private static List<String> changes(Omnigraph graph, String commit) {
        List<String> out = new ArrayList<>();
        Optional<String> token = Optional.empty();
        do {
            ChangeOperations.CommitPage request = ChangeOperations.CommitPage.of(commit).limit(8_000);
            CommitChanges page = graph.changes().commit(token.map(request::pageToken).orElse(request)).block(WAIT);
            page.changes().forEach(change -> out.add(describe(change)));
            token = page.nextPageToken();
        } while (token.isPresent());
        return out;
    }

    private static String describe(EntityChange change) {
        Object before = change.before().map(image -> image.properties().get("age")).orElse(null);
        Object after = change.after().map(image -> image.properties().get("age")).orElse(null);
        return switch (change.op()) {
            case INSERT -> "insert " + change.id();
            case UPDATE -> "update " + change.id() + " " + before + " -> " + after;
            case DELETE -> "delete " + change.id() + " " + before;
        };
    }

    private static Flux<ByteBuffer> persons(int from, int to) {
        StringBuilder ndjson = new StringBuilder();
        for (int i = from; i < to; i++) {
            ndjson.append(String.format("{\"type\":\"Person\",\"data\":{\"name\":\"p%05d\",\"age\":%d}}%n", i, i));
        }
        return Flux.just(ByteBuffer.wrap(ndjson.toString().getBytes(StandardCharsets.UTF_8)));
    }
}
