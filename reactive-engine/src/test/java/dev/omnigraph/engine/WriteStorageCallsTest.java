package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.CountingObjectStore;
import dev.omnigraph.storage.StorageCallCounter;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestBatchPublisher;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Storage calls are deterministic, so their number per single-row write is asserted (never its time): a warm
 * handle re-reads nothing that has not moved, and the count stays the same as the manifest grows one commit row
 * per write. Every acknowledged commit stays an exact time-travel point.
 */
class WriteStorageCallsTest {
    /** Seam calls (tables and object store) of one single-row insert on a warm handle. */
    static final long MAX_CALLS_PER_SINGLE_ROW_WRITE = 12;
    static final String QUERIES = """
            query addPerson($name: String) { insert Person { name: $name } }
            query named($name: String) { match { $p: Person { name: $name } } return { $p.name } }
            query people() { match { $p: Person } return { count($p) } }
            """;

    @TempDir
    Path dir;
    StorageCallCounter counter;
    StorageServices services;
    Omnigraph graph;

    @BeforeEach
    void setUp() {
        counter = new StorageCallCounter();
        services = EngineFixture.countingServices(counter)
                .withObjectStores(store -> new CountingObjectStore(store, counter));
        graph = Omnigraph.init(services, dir.resolve("g"), EngineFixture.SOCIAL).block();
    }

    @AfterEach
    void tearDown() {
        graph.close();
        EngineFixture.close(services);
    }

    private GraphCommit insert(String name) {
        return graph.mutate("main", QUERIES, "addPerson", Map.of("name", name), WriteOptions.DEFAULT).block()
                .commit().orElseThrow();
    }

    /** The calls of one insert, by class (volumes such as scanned rows left out). */
    private Map<String, Long> callsOfInsert(String name) {
        var before = counter.snapshot();
        insert(name);
        return StorageCallCounter.delta(before, counter.snapshot());
    }

    @Test
    void aSingleRowWriteMakesAtMostTwelveCallsWhateverTheHistoryDepth() {
        insert("warm");
        List<Long> totals = new ArrayList<>();
        List<Map<String, Long>> calls = new ArrayList<>();
        // Past the manifest's compaction threshold, so the deep writes run on a compacted, history-heavy manifest.
        int writes = ManifestBatchPublisher.COMPACT_AT_FRAGMENTS + 8;
        for (int i = 0; i < writes; i++) {
            Map<String, Long> one = callsOfInsert("p" + i);
            calls.add(one);
            totals.add(StorageCallCounter.totalCalls(one));
        }
        // A write that folds the manifest makes six more calls (open, liveRowsByFragment, a scan of the group and
        // one of the stamp row, stage, commit: the rows written again, see ManifestFold), and the write after it one
        // fresh manifest read.
        long steady = totals.get(0);
        assertThat(steady).as("calls of one write: %s", calls.get(0)).isLessThanOrEqualTo(MAX_CALLS_PER_SINGLE_ROW_WRITE);
        assertThat(calls.get(0)).doesNotContainKey("scan");
        long deviating = totals.stream().filter(total -> total != steady).count();
        assertThat(deviating).as("per-write calls %s", totals).isLessThanOrEqualTo(4);
        assertThat(totals.get(writes - 1)).isEqualTo(steady);
        assertThat(totals).allSatisfy(total -> assertThat(total).isLessThanOrEqualTo(steady + 6));
    }

    @Test
    void aWarmSingleRowWriteChecksTheManifestVersionOnlyOnceUnderItsGates() {
        insert("warm");
        Map<String, Long> one = callsOfInsert("once");
        // The plan starts from the state the handle kept; the recheck under the gates is the one live read.
        assertThat(one.get("open")).as("calls of one write: %s", one).isEqualTo(1);
    }

    @Test
    void everyAcknowledgedCommitIsAnExactTimeTravelPoint() {
        List<GraphCommit> acknowledged = new ArrayList<>();
        int writes = ManifestBatchPublisher.COMPACT_AT_FRAGMENTS + 2;
        for (int i = 0; i < writes; i++) {
            acknowledged.add(insert("t" + i));
        }
        for (int i = 0; i < writes; i++) {
            GraphCommit commit = acknowledged.get(i);
            GraphSnapshot at = graph.snapshot(ReadTarget.commit(commit.id())).block();
            assertThat(at.graphCommitId()).contains(commit.id());
            assertThat(at.manifestVersion()).isEqualTo(commit.manifestVersion());
            assertThat(at.table("node:Person").orElseThrow().rowCount()).isEqualTo(i + 1);
            List<List<Object>> found = graph.query(ReadTarget.commit(commit.id()), QUERIES, "named", Map.of("name", "t" + i))
                    .flatMap(out -> out.rows().collectList()).block();
            assertThat(found).containsExactly(List.of("t" + i));
            if (i + 1 < writes) {
                List<List<Object>> later = graph.query(ReadTarget.commit(commit.id()), QUERIES, "named",
                        Map.of("name", "t" + (i + 1))).flatMap(out -> out.rows().collectList()).block();
                assertThat(later).isEmpty();
            }
        }
    }
}
