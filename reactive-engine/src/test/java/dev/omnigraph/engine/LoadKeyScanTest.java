package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static dev.omnigraph.engine.GraphTestSupport.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.error.KeyConflict;
import dev.omnigraph.storage.error.ValidationError;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Load validation of batches of more than one {@code IN} chunk (512 ids) on a table of comparable size, where the
 * key preflight and the endpoint checks scan the key column once instead of filtering by chunks: the same typed
 * errors, naming the same ids, and nothing written, as the chunked lookups give for small batches (LoadTest).
 */
class LoadKeyScanTest extends InitedGraphTestBase {
    static final int BATCH = 600;

    @Override
    String schema() {
        return EngineFixture.SOCIAL;
    }

    @BeforeEach
    void seed() {
        load(persons(0, BATCH));
    }

    @AfterEach
    void close() {
        assertThat(graph.gates().allIdle()).isTrue();
    }

    WriteOutcome load(List<String> lines) {
        return graph.load("main", LoadMode.APPEND, ndjson(lines.toArray(String[]::new)), LoadOptions.DEFAULT).block();
    }

    static List<String> persons(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> "{\"type\":\"Person\",\"data\":{\"name\":\"p" + i + "\"}}").toList();
    }

    static String knows(String from, String to) {
        return "{\"edge\":\"Knows\",\"from\":\"" + from + "\",\"to\":\"" + to + "\"}";
    }

    static List<String> knowsChain(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> knows("p" + i, "p" + (i + 1 == to ? from : i + 1))).toList();
    }

    void refused(List<String> lines, Class<? extends RuntimeException> type, java.util.function.Consumer<RuntimeException> check) {
        Map<String, Long> before = versions(graph);
        assertThatThrownBy(() -> load(lines)).isInstanceOfSatisfying(type, e -> check.accept(e));
        assertThat(versions(graph)).as("nothing written").isEqualTo(before);
    }

    @Test
    void idsAlreadyInTheTableAreAKeyConflictNamingExactlyThem() {
        refused(persons(590, 590 + BATCH), KeyConflict.class, e -> assertThat(((KeyConflict) e).ids())
                .containsExactly("p590", "p591", "p592", "p593", "p594", "p595", "p596", "p597", "p598", "p599"));
    }

    @Test
    void anIdTwiceInOneBatchIsAKeyConflict() {
        List<String> lines = new ArrayList<>(persons(BATCH, 2 * BATCH));
        lines.add(lines.get(17));
        refused(lines, KeyConflict.class, e -> assertThat(((KeyConflict) e).ids()).containsExactly("p" + (BATCH + 17)));
    }

    @Test
    void anIdOfAnEarlierChunkIsAKeyConflictInALaterOne() {
        load(persons(BATCH, 2 * BATCH));
        List<String> third = new ArrayList<>(persons(2 * BATCH, 3 * BATCH - 1));
        third.add("{\"type\":\"Person\",\"data\":{\"name\":\"p" + (BATCH + 3) + "\"}}");
        refused(third, KeyConflict.class, e -> assertThat(((KeyConflict) e).ids()).containsExactly("p" + (BATCH + 3)));
    }

    @Test
    void aDanglingOrDeletedEndpointAmongManyIsRefusedNamingIt() {
        List<String> edges = new ArrayList<>(knowsChain(0, BATCH));
        edges.set(300, knows("p300", "ghost"));
        refused(edges, ValidationError.class, e -> assertThat(e.getMessage()).endsWith("to node Person 'ghost' does not exist"));
        graph.mutate("main", "query rm($n: String) { delete Person where name = $n }", "rm", Map.of("n", "p42"),
                WriteOptions.DEFAULT).block();
        refused(knowsChain(0, BATCH), ValidationError.class,
                e -> assertThat(e.getMessage()).contains("node Person 'p42' does not exist"));
    }

    @Test
    void endpointsCommittedOrCreatedInTheSameLoadAreAccepted() {
        WriteOutcome committedEnds = load(knowsChain(0, BATCH));
        assertThat(committedEnds.affectedEdges()).isEqualTo(BATCH);
        List<String> mixed = new ArrayList<>(persons(BATCH, 2 * BATCH));
        mixed.addAll(knowsChain(BATCH - 300, BATCH + 300)); // half committed, half in this load
        WriteOutcome outcome = load(mixed);
        assertThat(outcome.affectedNodes()).isEqualTo(BATCH);
        assertThat(outcome.affectedEdges()).isEqualTo(BATCH);
        assertThat(graph.snapshot(ReadTarget.main()).block().table("edge:Knows").orElseThrow().rowCount())
                .isEqualTo(2 * BATCH);
    }

    @Test
    void aKeyConflictIsReportedBeforeADanglingEndpointCheckedBesideIt() {
        load(IntStream.range(0, BATCH).mapToObj(i -> knowsWithId("k" + i, "p" + i, "p" + ((i + 1) % BATCH))).toList());
        // Every edge id is new but one, and one endpoint dangles: the key preflight and the endpoint check read
        // side by side, and the key conflict still wins, as when they ran one after the other.
        List<String> edges = new ArrayList<>(IntStream.range(BATCH, 2 * BATCH)
                .mapToObj(i -> knowsWithId("k" + i, "p" + (i - BATCH), "p" + ((i + 5) % BATCH))).toList());
        edges.set(10, knowsWithId("k77", "p1", "p2"));
        edges.set(20, knowsWithId("k9999", "p3", "ghost"));
        refused(edges, KeyConflict.class, e -> assertThat(((KeyConflict) e).ids()).containsExactly("k77"));
    }

    static String knowsWithId(String id, String from, String to) {
        return "{\"edge\":\"Knows\",\"from\":\"" + from + "\",\"to\":\"" + to + "\",\"data\":{\"id\":\"" + id + "\"}}";
    }
}
