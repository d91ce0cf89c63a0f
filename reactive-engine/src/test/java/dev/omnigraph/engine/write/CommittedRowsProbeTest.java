package dev.omnigraph.engine.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.EngineInternals;
import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.write.CommittedRows.Probe;
import dev.omnigraph.storage.manifest.TableEntry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * The two ways {@link CommittedRows#existing} finds committed keys — chunked {@code IN} filters and one scan of
 * the column matched in memory — give the same, exact answer: every wanted value some live row holds, never a
 * deleted or replaced row's, never a value only wanted; on plain and BTREE-indexed tables, over several chunks.
 */
class CommittedRowsProbeTest {
    static final int PEOPLE = 1_200;

    @TempDir
    Path dir;
    StorageServices services;
    Omnigraph graph;

    @BeforeEach
    void init() {
        services = EngineInternals.services();
        graph = Omnigraph.init(services, dir.resolve("g"), EngineInternals.socialSchema()).block();
        // two loads (two fragments), then a merge replacing some rows and deletes (deletion vectors)
        load(LoadMode.APPEND, IntStream.range(0, PEOPLE / 2));
        load(LoadMode.APPEND, IntStream.range(PEOPLE / 2, PEOPLE));
        load(LoadMode.MERGE, IntStream.range(100, 140));
        for (int i : List.of(7, 8, 700, 1_199)) {
            graph.mutate("main", "query rm($n: String) { delete Person where name = $n }", "rm", Map.of("n", "p" + i),
                    WriteOptions.DEFAULT).block();
        }
    }

    @AfterEach
    void close() {
        EngineInternals.close(services);
    }

    void load(LoadMode mode, IntStream ids) {
        String text = ids.mapToObj(i -> "{\"type\":\"Person\",\"data\":{\"name\":\"p" + i + "\",\"age\":" + (i % 90) + "}}\n")
                .collect(Collectors.joining());
        graph.load("main", mode, Flux.just(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8))), LoadOptions.DEFAULT)
                .block();
    }

    /** Every wanted set: present, absent, deleted, replaced ids, more than one IN chunk, and none. */
    static List<Set<String>> wantedSets() {
        Set<String> many = IntStream.range(0, 1_500).filter(i -> i % 2 == 0).mapToObj(i -> "p" + i)
                .collect(Collectors.toSet()); // 750 ids: two IN chunks, some past the table's last id
        Set<String> small = Set.of("p0", "p7", "p8", "p120", "p700", "p1199", "p1198", "nobody", "");
        Set<String> absent = IntStream.range(0, 600).mapToObj(i -> "q" + i).collect(Collectors.toSet());
        return List.of(many, small, absent, Set.of());
    }

    static Set<String> expected(Set<String> wanted) {
        Set<String> live = new HashSet<>();
        IntStream.range(0, PEOPLE).filter(i -> !List.of(7, 8, 700, 1_199).contains(i)).forEach(i -> live.add("p" + i));
        live.retainAll(wanted);
        return live;
    }

    void bothProbesAnswerExactly() {
        CommittedRows committed = new CommittedRows(EngineInternals.writeContext(graph));
        TableEntry people = EngineInternals.pins(graph).get("node:Person");
        for (Set<String> wanted : wantedSets()) {
            Set<String> byIn = committed.existing(people, "id", wanted, Probe.IN_CHUNKS).block();
            Set<String> byScan = committed.existing(people, "id", wanted, Probe.WHOLE_COLUMN).block();
            assertThat(byIn).isEqualTo(expected(wanted));
            assertThat(byScan).isEqualTo(byIn);
            assertThat(committed.existing(people, "id", wanted).block()).isEqualTo(byIn);
        }
    }

    @Test
    void bothProbesAnswerExactlyOnAPlainTable() {
        bothProbesAnswerExactly();
    }

    @Test
    void bothProbesAnswerExactlyOnAnIndexedTableWithRowsAddedAfterTheIndex() {
        graph.ensureIndexes("main", java.util.Optional.empty()).block();
        load(LoadMode.APPEND, IntStream.range(PEOPLE, PEOPLE + 50)); // an unindexed fragment
        for (String gone : List.of("p1210", "p3")) { // one unindexed row, one indexed row
            graph.mutate("main", "query rm($n: String) { delete Person where name = $n }", "rm", Map.of("n", gone),
                    WriteOptions.DEFAULT).block();
        }
        CommittedRows committed = new CommittedRows(EngineInternals.writeContext(graph));
        TableEntry people = EngineInternals.pins(graph).get("node:Person");
        Set<String> wanted = Set.of("p1", "p3", "p7", "p1205", "p1210", "p1249", "p1250");
        Set<String> expected = Set.of("p1", "p1205", "p1249");
        assertThat(committed.existing(people, "id", wanted, Probe.IN_CHUNKS).block()).isEqualTo(expected);
        assertThat(committed.existing(people, "id", wanted, Probe.WHOLE_COLUMN).block()).isEqualTo(expected);
    }

    @Test
    void theColumnIsScannedWhenTheInFiltersWouldNeedMoreThanOneScanAndTheTableIsNotFarLarger() {
        int chunk = CommittedRows.CHUNK;
        assertThat(Probe.choose(0, chunk)).isEqualTo(Probe.IN_CHUNKS);
        assertThat(Probe.choose(0, chunk + 1)).isEqualTo(Probe.WHOLE_COLUMN);
        long bound = (chunk + 1L) * CommittedRows.WHOLE_SCAN_ROWS_PER_VALUE;
        assertThat(Probe.choose(bound, chunk + 1)).isEqualTo(Probe.WHOLE_COLUMN);
        assertThat(Probe.choose(bound + 1, chunk + 1)).isEqualTo(Probe.IN_CHUNKS);
        // An edge chunk of a bulk load (about 14,000 distinct endpoints) against 5,000,000 persons scans once.
        assertThat(Probe.choose(5_000_000, 14_000)).isEqualTo(Probe.WHOLE_COLUMN);
        assertThat(Probe.choose(5_000_000, 1)).isEqualTo(Probe.IN_CHUNKS);
    }
}
