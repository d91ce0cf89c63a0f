package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.diff.ChangeFilter;
import dev.omnigraph.engine.diff.CommitChanges;
import dev.omnigraph.engine.maintain.OptimizeResult;
import dev.omnigraph.storage.StorageCallCounter;
import dev.omnigraph.storage.StorageCallCounter.Call;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A compaction changes no entity: the change feed reports an optimize commit as empty without diffing tables. */
class OptimizeChangeFeedTest {
    static final String QUERIES = "query note($t: String) { insert Note { text: $t } }";

    @TempDir
    Path dir;
    final StorageCallCounter counter = new StorageCallCounter();
    StorageServices services;

    @AfterEach
    void close() {
        EngineFixture.close(services);
    }

    @Test
    void anOptimizeCommitHasNoChangesAndIsNotDiffed() {
        services = EngineFixture.countingServices(counter);
        Omnigraph graph = Omnigraph.init(services, dir.resolve("g"), GraphTestSupport.CONSTRAINED).block();
        for (int i = 0; i < 4; i++) {
            graph.mutate("main", QUERIES, "note", Map.of("t", "n" + i), WriteOptions.DEFAULT).block();
        }
        OptimizeResult optimized = graph.optimize(Optional.empty()).block();
        assertThat(optimized.compactedTables()).contains("node:Note");
        String commit = optimized.commitId().orElseThrow();

        long scans = counter.get(Call.SCAN);
        CommitChanges changes = graph.changes().commit(new ChangeOperations.CommitPage(commit, ChangeFilter.ALL, Optional.empty(), Optional.empty())).block();
        long optimizeScans = counter.get(Call.SCAN) - scans;
        assertThat(changes.changes()).isEmpty();
        assertThat(changes.nextPageToken()).isEmpty();

        // A one-row data commit is still diffed: it costs the same commit lookups plus its table's two sides.
        String write = graph.mutate("main", QUERIES, "note", Map.of("t", "after"), WriteOptions.DEFAULT).block()
                .commit().orElseThrow().id();
        scans = counter.get(Call.SCAN);
        assertThat(graph.changes().commit(new ChangeOperations.CommitPage(write, ChangeFilter.ALL, Optional.empty(), Optional.empty())).block().changes())
                .hasSize(1);
        long writeScans = counter.get(Call.SCAN) - scans;
        assertThat(optimizeScans).as("no table of the optimize commit is read, only the commit itself")
                .isLessThan(writeScans);
    }
}
