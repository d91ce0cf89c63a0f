package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.CONSTRAINED;
import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.diff.ChangeFilter;
import dev.omnigraph.engine.diff.CommitChanges;
import dev.omnigraph.engine.diff.EntityChange;
import dev.omnigraph.engine.diff.FeedPage;
import dev.omnigraph.engine.diff.FeedStart;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.ChangeDiffRefused;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Commit diffs and the change feed over real Lance datasets: each operation appears exactly as written. */
class ChangesTest extends ConstrainedGraphTest {
    static final String QUERIES = MutationTest.QUERIES;
    static final Duration WAIT = Duration.ofSeconds(60);


    String mutate(String query, Object... keyValues) {
        Map<String, Object> params = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) params.put((String) keyValues[i], keyValues[i + 1]);
        WriteOutcome outcome = graph.mutate("main", QUERIES, query, params, WriteOptions.DEFAULT).block(WAIT);
        return outcome.commit().orElseThrow().id();
    }

    String load(LoadMode mode, String... lines) {
        return graph.load("main", mode, ndjson(lines), LoadOptions.DEFAULT).block(WAIT).commit().orElseThrow().id();
    }

    List<EntityChange> changes(String commitId) {
        return changes(commitId, ChangeFilter.ALL);
    }

    List<EntityChange> changes(String commitId, ChangeFilter filter) {
        CommitChanges page = graph.changes().commit(new ChangeOperations.CommitPage(commitId, filter, Optional.empty(), Optional.empty())).block(WAIT);
        assertThat(page.nextPageToken()).isEmpty();
        assertThat(page.cause().graphCommitId()).isEqualTo(commitId);
        return page.changes();
    }

    static String summary(EntityChange c) {
        return c.kind() + ":" + c.typeName() + ":" + c.op().wireName() + ":" + c.id();
    }

    @Test
    void insertUpdateAndDeleteOfANodeAppearExactlyAsWritten() {
        String insert = mutate("addPerson", "name", "Ada", "age", 36);
        List<EntityChange> inserted = changes(insert);
        assertThat(inserted).extracting(ChangesTest::summary).containsExactly("node:Person:insert:Ada");
        assertThat(inserted.get(0).before()).isEmpty();
        assertThat(inserted.get(0).after().orElseThrow().properties()).containsEntry("name", "Ada").containsEntry("age", 36)
                .containsKey("email"); // a null cell keeps its key
        assertThat(inserted.get(0).after().orElseThrow().endpoints()).isEmpty();

        String update = mutate("setAge", "name", "Ada", "age", 37);
        List<EntityChange> updated = changes(update);
        assertThat(updated).extracting(ChangesTest::summary).containsExactly("node:Person:update:Ada");
        assertThat(updated.get(0).before().orElseThrow().properties()).containsEntry("age", 36);
        assertThat(updated.get(0).after().orElseThrow().properties()).containsEntry("age", 37);

        String delete = mutate("removePerson", "name", "Ada");
        List<EntityChange> deleted = changes(delete);
        assertThat(deleted).extracting(ChangesTest::summary).containsExactly("node:Person:delete:Ada");
        assertThat(deleted.get(0).after()).isEmpty();
        assertThat(deleted.get(0).before().orElseThrow().properties()).containsEntry("age", 37);
    }

    @Test
    void anUpdateThatChangesNothingIsNotAChange() {
        mutate("addPerson", "name", "Ada", "age", 36);
        WriteOutcome same = graph.mutate("main", QUERIES, "setAge", Map.of("name", "Ada", "age", 36), WriteOptions.DEFAULT)
                .block(WAIT);
        same.commit().ifPresent(commit -> assertThat(changes(commit.id())).isEmpty());
    }

    @Test
    void edgesCarryEndpointsAndAMutationDoingSeveralThingsShowsEachOnce() {
        String pair = mutate("addPair", "a", "Ada", "b", "Bob");
        List<EntityChange> all = changes(pair);
        assertThat(all).extracting(c -> c.kind() + ":" + c.typeName() + ":" + c.op().wireName())
                .containsExactly("edge:Knows:insert", "node:Person:insert", "node:Person:insert");
        EntityChange edge = all.get(0);
        assertThat(edge.after().orElseThrow().endpoints().orElseThrow()).isEqualTo(new EntityChange.Endpoints("Ada", "Bob"));
        assertThat(edge.after().orElseThrow().properties()).doesNotContainKeys("id", "src", "dst");

        String both = mutate("insertThenUpdate", "n", "Cy");
        List<EntityChange> net = changes(both);
        assertThat(net).extracting(ChangesTest::summary).containsExactly("node:Person:insert:Cy");
        assertThat(net.get(0).after().orElseThrow().properties()).containsEntry("age", 11);

        String work = mutate("addCompany", "name", "Acme");
        String worksAt = mutate("worksAt", "p", "Ada", "c", "Acme");
        assertThat(changes(work)).extracting(ChangesTest::summary).containsExactly("node:Company:insert:Acme");
        List<EntityChange> edges = changes(worksAt);
        assertThat(edges).extracting(c -> c.kind() + ":" + c.op().wireName()).containsExactly("edge:insert");
        assertThat(edges.get(0).typeId()).isNotBlank();
    }

    @Test
    void loadsInEachModeAppearExactlyAsWritten() {
        String append = load(LoadMode.APPEND,
                "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":36}}",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\",\"age\":41}}",
                "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Bob\"}");
        assertThat(changes(append)).extracting(c -> c.kind() + ":" + c.op().wireName() + ":" + c.typeName())
                .containsExactly("edge:insert:Knows", "node:insert:Person", "node:insert:Person");

        String merge = load(LoadMode.MERGE,
                "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":37}}",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\",\"age\":41}}",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Cy\"}}");
        // Bob is rewritten with identical values: not a change.
        assertThat(changes(merge)).extracting(ChangesTest::summary)
                .containsExactly("node:Person:update:Ada", "node:Person:insert:Cy");

        String overwrite = load(LoadMode.OVERWRITE, "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":37}}",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\",\"age\":42}}");
        List<String> replaced = changes(overwrite, new ChangeFilter(Set.of("node"), Set.of(), Set.of()))
                .stream().map(ChangesTest::summary).toList();
        assertThat(replaced).containsExactly("node:Person:update:Bob", "node:Person:delete:Cy");
    }

    @Test
    void filtersAndPagesNeitherSkipNorRepeat() {
        load(LoadMode.APPEND, "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":1}}",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\",\"age\":2}}",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Cy\",\"age\":3}}");
        String commit = load(LoadMode.MERGE, "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":9}}",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Dee\"}}",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Eve\"}}",
                "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}",
                "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Bob\"}");
        List<String> all = changes(commit).stream().map(ChangesTest::summary).toList();
        assertThat(all).hasSize(5);
        assertThat(changes(commit, ChangeFilter.parse(List.of("edge"), List.of(), List.of())))
                .extracting(EntityChange::kind).containsExactly("edge");
        assertThat(changes(commit, ChangeFilter.parse(List.of(), List.of("Person"), List.of("update"))))
                .extracting(ChangesTest::summary).containsExactly("node:Person:update:Ada");
        assertThat(changes(commit, ChangeFilter.parse(List.of(), List.of("Company", "Knows"), List.of())))
                .hasSize(2);

        List<String> paged = new ArrayList<>();
        Optional<String> token = Optional.empty();
        int pages = 0;
        do {
            CommitChanges page = graph.changes().commit(new ChangeOperations.CommitPage(commit, ChangeFilter.ALL, token, Optional.of(2))).block(WAIT);
            assertThat(page.changes()).hasSizeLessThanOrEqualTo(2);
            page.changes().forEach(c -> paged.add(summary(c)));
            token = page.nextPageToken();
            pages++;
        } while (token.isPresent());
        assertThat(paged).isEqualTo(all);
        assertThat(pages).isEqualTo(3);
    }

    @Test
    void refusalsAreTyped() {
        String genesis = graph.commits("main").collectList().block(WAIT).get(0).id();
        assertThatThrownBy(() -> changes(genesis)).isInstanceOfSatisfying(ChangeDiffRefused.class,
                e -> assertThat(e.reason()).isEqualTo(ChangeDiffRefused.Reason.PARENTLESS_COMMIT));
        assertThatThrownBy(() -> changes("01JUNKNOWNCOMMIT0000000000")).isInstanceOf(NotFound.class);
        String commit = mutate("addPerson", "name", "Ada", "age", 1);
        assertThatThrownBy(() -> changes(commit, ChangeFilter.parse(List.of("vertex"), List.of(), List.of())))
                .isInstanceOf(BadRequest.class).hasMessageContaining("kind");
        assertThatThrownBy(() -> changes(commit, ChangeFilter.parse(List.of(), List.of("Nope"), List.of())))
                .isInstanceOf(BadRequest.class).hasMessageContaining("Nope");
        assertThatThrownBy(() -> graph.changes().commit(new ChangeOperations.CommitPage(commit, ChangeFilter.ALL, Optional.of("garbage!"), Optional.empty()))
                .block(WAIT)).isInstanceOf(BadRequest.class).hasMessageContaining("page_token rejected");
        assertThatThrownBy(() -> graph.changes().commit(new ChangeOperations.CommitPage(commit, ChangeFilter.ALL, Optional.empty(), Optional.of(8193)))
                .block(WAIT)).isInstanceOf(ResourceLimitExceeded.class);
    }

    // ---- the feed ----

    FeedPage poll(FeedStart start, ChangeFilter filter, int limit) {
        return graph.changes().poll(new ChangeOperations.Poll("main", start, filter, Optional.of(limit))).block(WAIT);
    }

    /** Drains one poll through its page tokens: the changes seen and the terminal cursor. */
    Map.Entry<List<String>, String> drain(FeedStart start, int limit) {
        List<String> seen = new ArrayList<>();
        FeedPage page = poll(start, ChangeFilter.ALL, limit);
        while (true) {
            page.blocks().forEach(b -> b.changes().forEach(c -> seen.add(b.cause().graphCommitId() + "/" + summary(c))));
            if (page.cursor().isPresent()) return Map.entry(seen, page.cursor().get());
            page = poll(new FeedStart.Page(page.nextPageToken().orElseThrow()), ChangeFilter.ALL, limit);
        }
    }

    @Test
    void theFeedResumedFromACursorNeitherSkipsNorRepeatsAcrossWritesAndARestart() {
        FeedPage now = poll(new FeedStart.Now(), ChangeFilter.ALL, 10);
        assertThat(now.blocks()).isEmpty();
        assertThat(now.caughtUp()).contains(true);
        String cursor = now.cursor().orElseThrow();

        String c1 = mutate("addPair", "a", "Ada", "b", "Bob");
        String c2 = mutate("setAge", "name", "Ada", "age", 5);
        var first = drain(new FeedStart.Cursor(cursor), 1);
        assertThat(first.getKey()).containsExactly(c1 + "/edge:Knows:insert:" + first.getKey().get(0).split(":")[3],
                c1 + "/node:Person:insert:Ada", c1 + "/node:Person:insert:Bob", c2 + "/node:Person:update:Ada");

        String c3 = mutate("removePerson", "name", "Bob");
        graph.close();
        graph = Omnigraph.open(services, dir.resolve("g"), OpenMode.READ_WRITE).block(WAIT);
        var second = drain(new FeedStart.Cursor(first.getValue()), 1);
        // Deleting Bob cascades to the edge that touched him: both deletes are this commit's changes.
        assertThat(second.getKey()).containsExactly(c3 + "/edge:Knows:delete:" + first.getKey().get(0).split(":")[3],
                c3 + "/node:Person:delete:Bob");
        var third = drain(new FeedStart.Cursor(second.getValue()), 1);
        assertThat(third.getKey()).isEmpty();

        var everything = drain(new FeedStart.Beginning(), 1000);
        List<String> joined = new ArrayList<>(first.getKey());
        joined.addAll(second.getKey());
        assertThat(everything.getKey()).isEqualTo(joined);
        assertThat(drain(new FeedStart.After(c2), 3).getKey()).isEqualTo(second.getKey());
    }

    @Test
    void aPollCapturesAtMostItsCommitsAndSaysWhenMoreWait() {
        for (int i = 0; i < 3; i++) mutate("addPerson", "name", "P" + (char) ('a' + i), "age", i);
        FeedPage page = graph.changes().poll(new ChangeOperations.Poll("main", new FeedStart.Beginning(), ChangeFilter.ALL, Optional.of(1000))).block(WAIT);
        assertThat(page.blocks()).hasSize(3);
        assertThat(page.caughtUp()).contains(true);
    }

    @Test
    void foreignAndMalformedCursorsAreRefused() {
        mutate("addPerson", "name", "Ada", "age", 1);
        String cursor = poll(new FeedStart.Now(), ChangeFilter.ALL, 10).cursor().orElseThrow();
        Omnigraph other = Omnigraph.init(services, dir.resolve("other"), CONSTRAINED).block(WAIT);
        try {
            assertThatThrownBy(() -> other.changes().poll(new ChangeOperations.Poll("main", new FeedStart.Cursor(cursor), ChangeFilter.ALL,
                    Optional.empty())).block(WAIT)).isInstanceOf(BadRequest.class)
                    .hasMessageContaining("change cursor rejected").hasMessageContaining("another graph");
        } finally {
            other.close();
        }
        assertThatThrownBy(() -> poll(new FeedStart.Cursor("%%%"), ChangeFilter.ALL, 10))
                .isInstanceOf(BadRequest.class).hasMessageContaining("change cursor rejected");
        assertThatThrownBy(() -> poll(new FeedStart.Cursor(cursor), ChangeFilter.parse(List.of("node"), List.of(), List.of()), 10))
                .isInstanceOf(BadRequest.class).hasMessageContaining("filters");
        assertThatThrownBy(() -> FeedStart.of(Optional.of(cursor), Optional.of("now"), Optional.empty()))
                .isInstanceOf(BadRequest.class);
        assertThatThrownBy(() -> FeedStart.of(Optional.empty(), Optional.of("yesterday"), Optional.empty()))
                .isInstanceOf(BadRequest.class).hasMessageContaining("start");
    }

    @Test
    void baselineStreamsTheSnapshotThenAResumeCursor() {
        mutate("addPair", "a", "Ada", "b", "Bob");
        List<String> lines = graph.changes().baseline("main", ChangeFilter.parse(List.of("node"), List.of(), List.of()))
                .collectList().block(WAIT);
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).contains("\"type\":\"Person\"");
        assertThat(lines.get(2)).startsWith("{\"baseline\":{\"snapshot_commit_id\":\"");
        String cursor = lines.get(2).replaceAll(".*\"resume_cursor\":\"([^\"]+)\".*", "$1");
        String c2 = mutate("setAge", "name", "Bob", "age", 3);
        FeedPage page = poll(new FeedStart.Cursor(cursor), ChangeFilter.parse(List.of("node"), List.of(), List.of()), 10);
        assertThat(page.blocks()).singleElement().satisfies(b -> {
            assertThat(b.cause().graphCommitId()).isEqualTo(c2);
            assertThat(b.changes()).extracting(ChangesTest::summary).containsExactly("node:Person:update:Bob");
        });
    }
}
