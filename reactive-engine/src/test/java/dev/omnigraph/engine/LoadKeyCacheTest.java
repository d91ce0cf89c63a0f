package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.storage.StorageCallCounter;
import dev.omnigraph.storage.error.KeyConflict;
import dev.omnigraph.storage.error.ValidationError;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consecutive large loads on main reuse the committed ids the loads before them learned or published, instead of
 * scanning the key columns again; any other change of a table (a mutation, another branch) is looked up afresh,
 * with the same answers.
 */
class LoadKeyCacheTest {
    static final int BATCH = 600; // more than one IN chunk: the key checks scan the column

    @TempDir
    Path dir;
    StorageCallCounter counter;
    StorageServices services;
    Omnigraph graph;

    @BeforeEach
    void init() {
        counter = new StorageCallCounter();
        services = EngineFixture.countingServices(counter);
        graph = Omnigraph.init(services, dir.resolve("g"), EngineFixture.SOCIAL).block();
    }

    @AfterEach
    void close() {
        EngineFixture.close(services);
    }

    void load(LoadMode mode, List<String> lines) {
        load("main", mode, lines);
    }

    void load(String branch, LoadMode mode, List<String> lines) {
        graph.load(branch, mode, ndjson(lines.toArray(String[]::new)), LoadOptions.DEFAULT).block();
    }

    static List<String> persons(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> "{\"type\":\"Person\",\"data\":{\"name\":\"p" + i + "\"}}").toList();
    }

    static List<String> knows(int from, int to, int persons) {
        return IntStream.range(from, to).mapToObj(i -> "{\"edge\":\"Knows\",\"from\":\"p" + (i % persons) + "\",\"to\":\"p"
                + ((i * 7 + 3) % persons) + "\",\"data\":{\"id\":\"k" + i + "\"}}").toList();
    }

    long scansDuring(Runnable work) {
        long before = counter.get(StorageCallCounter.Call.SCAN);
        work.run();
        return counter.get(StorageCallCounter.Call.SCAN) - before;
    }

    @Test
    void consecutiveLoadsCheckKeysWithoutScanningAgain() {
        load(LoadMode.APPEND, persons(0, BATCH));
        load(LoadMode.APPEND, persons(BATCH, 2 * BATCH)); // learns Person's ids, then carries them to its commit
        load(LoadMode.APPEND, knows(0, BATCH, 2 * BATCH)); // Person unchanged since: known
        assertThat(scansDuring(() -> load(LoadMode.APPEND, persons(2 * BATCH, 3 * BATCH)))).isZero();
        assertThat(scansDuring(() -> load(LoadMode.APPEND, knows(BATCH, 2 * BATCH, 3 * BATCH)))).isZero();
        assertThat(scansDuring(() -> load(LoadMode.MERGE, knows(BATCH / 2, 3 * BATCH / 2, 3 * BATCH)))).isZero();
        // The carried sets are exact: an id of any earlier load conflicts, a missing endpoint is refused.
        assertThatThrownBy(() -> load(LoadMode.APPEND, persons(3 * BATCH - 1, 4 * BATCH)))
                .isInstanceOfSatisfying(KeyConflict.class, e -> assertThat(e.ids()).containsExactly("p" + (3 * BATCH - 1)));
        assertThatThrownBy(() -> load(LoadMode.APPEND, knows(2 * BATCH - 1, 3 * BATCH, 3 * BATCH)))
                .isInstanceOfSatisfying(KeyConflict.class, e -> assertThat(e.ids()).containsExactly("k" + (2 * BATCH - 1)));
        List<String> dangling = new ArrayList<>(knows(2 * BATCH, 3 * BATCH, 3 * BATCH));
        dangling.set(7, "{\"edge\":\"Knows\",\"from\":\"p1\",\"to\":\"p" + 3 * BATCH + "\"}");
        assertThatThrownBy(() -> load(LoadMode.APPEND, dangling)).isInstanceOf(ValidationError.class)
                .hasMessageContaining("node Person 'p" + 3 * BATCH + "' does not exist");
    }

    @Test
    void aTableChangedByAnotherWriteIsLookedUpAgain() {
        load(LoadMode.APPEND, persons(0, BATCH));
        load(LoadMode.APPEND, knows(0, BATCH, BATCH)); // learns Person's ids
        graph.mutate("main", "query rm($n: String) { delete Person where name = $n }", "rm", Map.of("n", "p42"),
                WriteOptions.DEFAULT).block();
        assertThat(scansDuring(() -> assertThatThrownBy(() -> load(LoadMode.APPEND, knows(BATCH, 2 * BATCH, BATCH)))
                .isInstanceOf(ValidationError.class).hasMessageContaining("node Person 'p42' does not exist")))
                .isPositive();
    }

    @Test
    void aBranchLoadIsNeverTakenForMainsNextVersion() {
        // The first branch write of a table lands on its fork at main's version + 1: its ids must not be carried
        // to main's version + 1, which main's own next write makes with other rows.
        load(LoadMode.APPEND, persons(0, BATCH));
        load(LoadMode.APPEND, persons(BATCH, 2 * BATCH)); // Person's ids known at main's version
        graph.createBranch("side", java.util.Optional.empty()).block();
        load("side", LoadMode.APPEND, persons(2 * BATCH, 3 * BATCH));
        graph.mutate("main", "query add($n: String) { insert Person { name: $n } }", "add", Map.of("n", "main-only"),
                WriteOptions.DEFAULT).block();

        List<String> again = new ArrayList<>(persons(3 * BATCH, 4 * BATCH));
        again.set(0, "{\"type\":\"Person\",\"data\":{\"name\":\"main-only\"}}");
        assertThatThrownBy(() -> load(LoadMode.APPEND, again))
                .isInstanceOfSatisfying(KeyConflict.class, e -> assertThat(e.ids()).containsExactly("main-only"));
        load(LoadMode.APPEND, persons(2 * BATCH, 3 * BATCH)); // the branch's ids are new on main
    }
}
