package dev.omnigraph.engine.diff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.ChangeOperations;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.internal.HandleInternals;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.storage.error.ChangeFeedGap;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Feed bounds and gaps: a poll captures at most its commit budget, and a cursor the history cannot reach is a 410. */
class ChangeFeedTest {
    static final Duration WAIT = Duration.ofSeconds(60);
    static final String SCHEMA = "node Person {\n    name: String @key\n    age: I32?\n}\n";
    static final String QUERIES = """
            query add($name: String) { insert Person { name: $name } }
            query addMany($a: String, $b: String, $c: String, $d: String, $e: String) {
                insert Person { name: $a }
                insert Person { name: $b }
                insert Person { name: $c }
                insert Person { name: $d }
                insert Person { name: $e }
            }
            """;

    @TempDir
    Path dir;
    StorageServices services;
    Omnigraph graph;

    @BeforeEach
    void setUp() {
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
        graph = Omnigraph.init(services, dir.resolve("g"), SCHEMA).block(WAIT);
    }

    @AfterEach
    void tearDown() {
        graph.close();
        services.tables().close();
    }

    String add(String name) {
        return graph.mutate("main", QUERIES, "add", Map.of("name", name), WriteOptions.DEFAULT).block(WAIT)
                .commit().orElseThrow().id();
    }

    @Test
    void aPollCapturesAtMostItsCommitBudgetAndSaysMoreWait() {
        String c1 = add("A");
        String c2 = add("B");
        String c3 = add("C");
        Changes changes = HandleInternals.of(graph).changes(new ChangeLimits(1_000, 8_192, 2, 512));
        FeedPage first = changes.poll("main", new FeedStart.Beginning(), ChangeFilter.ALL, Optional.empty()).block(WAIT);
        assertThat(first.blocks()).extracting(b -> b.cause().graphCommitId()).containsExactly(c1, c2);
        assertThat(first.caughtUp()).contains(false);
        FeedPage second = changes.poll("main", new FeedStart.Cursor(first.cursor().orElseThrow()), ChangeFilter.ALL,
                Optional.empty()).block(WAIT);
        assertThat(second.blocks()).extracting(b -> b.cause().graphCommitId()).containsExactly(c3);
        assertThat(second.caughtUp()).contains(true);
    }

    @Test
    void pagesEndAtTheirByteBudgetAndAChangeLargerThanItComesAlone() {
        String big = "c" + "x".repeat(3_000); // sorts between b1 and d1
        String commit = graph.mutate("main", QUERIES, "addMany", Map.of("a", "a1", "b", "b1", "c", big, "d", "d1",
                "e", "e1"), WriteOptions.DEFAULT).block(WAIT).commit().orElseThrow().id();
        // Room for about three small changes (an estimate of ~150 bytes each), never for the 3 KB one and another.
        Changes changes = HandleInternals.of(graph).changes(new ChangeLimits(1_000, 8_192, 128, 512, 500));

        List<List<String>> commitPages = new java.util.ArrayList<>();
        Optional<String> token = Optional.empty();
        do {
            CommitChanges page = changes.commit(commit, ChangeFilter.ALL, token, Optional.empty()).block(WAIT);
            commitPages.add(page.changes().stream().map(c -> c.id().length() > 10 ? "big" : c.id()).toList());
            token = page.nextPageToken();
        } while (token.isPresent());
        assertThat(commitPages).containsExactly(List.of("a1", "b1"), List.of("big"), List.of("d1", "e1"));

        List<List<String>> feedPages = new java.util.ArrayList<>();
        FeedStart start = new FeedStart.After(graph.commits("main").collectList().block(WAIT).get(1).id());
        FeedPage page;
        do {
            page = changes.poll("main", start, ChangeFilter.ALL, Optional.empty()).block(WAIT);
            feedPages.add(page.blocks().stream().flatMap(b -> b.changes().stream())
                    .map(c -> c.id().length() > 10 ? "big" : c.id()).toList());
            start = page.nextPageToken().<FeedStart>map(FeedStart.Page::new).orElse(null);
        } while (page.nextPageToken().isPresent());
        assertThat(feedPages).containsExactly(List.of("a1", "b1"), List.of("big"), List.of("d1", "e1"));
        assertThat(page.cursor()).isPresent();
        assertThat(commit).isNotBlank();
    }

    @Test
    void aCursorWhoseCommitTheHistoryNoLongerReachesIsAGap() {
        add("A");
        List<GraphCommit> history = graph.commits("main").collectList().block(WAIT);
        String genesis = history.get(history.size() - 1).id();
        String stray = ChangeTokens.encode(ChangeFeed.CURSOR, List.of(genesis, "main", ChangeFilter.ALL.scope(),
                "01JZZZZZZZZZZZZZZZZZZZZZZZ"));
        assertThatThrownBy(() -> graph.changes().poll(new ChangeOperations.Poll("main", new FeedStart.Cursor(stray), ChangeFilter.ALL, Optional.empty()))
                .block(WAIT)).isInstanceOfSatisfying(ChangeFeedGap.class, gap -> {
                    assertThat(gap.cursor()).contains(stray);
                    assertThat(gap.firstUnreadableCommitId()).isNotBlank();
                });
    }
}
