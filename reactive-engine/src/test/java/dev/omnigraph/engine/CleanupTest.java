package dev.omnigraph.engine;

import static dev.omnigraph.engine.CleanupHistory.diskUsage;
import static dev.omnigraph.engine.CleanupHistory.everything;
import static dev.omnigraph.engine.CleanupHistory.newest;
import static dev.omnigraph.engine.CleanupHistory.timeTravel;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.cleanup.CleanupOptions;
import dev.omnigraph.engine.cleanup.CleanupReport;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** cleanup on real Lance datasets: what the retention rule keeps, what it frees, and when it refuses. */
class CleanupTest extends ConstrainedGraphTest {
    Path root;

    @BeforeEach
    void history() {
        root = dir.resolve("g");
        CleanupHistory.build(graph);
    }

    static CleanupOptions keep(int n, boolean confirm) {
        return CleanupOptions.of(OptionalInt.of(n), Optional.empty(), confirm);
    }

    @Test
    void keepsEveryRetainedStateAndFreesExactlyWhatItReports() {
        var mainTravel = timeTravel(graph, "main");
        var featTravel = timeTravel(graph, "feat");
        var mainNow = everything(graph, ReadTarget.main());
        var featNow = everything(graph, ReadTarget.branch("feat"));
        long before = diskUsage(root);

        CleanupReport preview = graph.cleanup(keep(3, false)).block();
        assertThat(preview.confirmed()).isFalse();
        assertThat(preview.versions()).isPositive();
        assertThat(preview.bytes()).isPositive();
        assertThat(diskUsage(root)).as("a preview deletes nothing").isEqualTo(before);

        CleanupReport done = graph.cleanup(keep(3, true)).block();
        assertThat(done.tables()).isEqualTo(preview.tables());
        assertThat(diskUsage(root)).isEqualTo(before - done.bytes());

        for (String id : newest(graph, "main", 3)) {
            assertThat(everything(graph, ReadTarget.commit(id))).as("main commit %s", id).isEqualTo(mainTravel.get(id));
        }
        for (String id : newest(graph, "feat", 3)) {
            assertThat(everything(graph, ReadTarget.commit(id))).as("feat commit %s", id).isEqualTo(featTravel.get(id));
        }
        assertThat(everything(graph, ReadTarget.main())).isEqualTo(mainNow);
        assertThat(everything(graph, ReadTarget.branch("feat"))).isEqualTo(featNow);
        String genesis = graph.commits("main").last().map(GraphCommit::id).block();
        assertThatThrownBy(() -> everything(graph, ReadTarget.commit(genesis)))
                .as("a commit outside retention no longer reads its tables");

        CleanupReport again = graph.cleanup(keep(3, true)).block();
        assertThat(again.tables()).as("nothing left to collect").isEmpty();

        CleanupHistory.person(graph, "main", "Ivy");
        CleanupHistory.person(graph, "feat", "Jo");
        assertThat(everything(graph, ReadTarget.main()).get("node:Person")).hasSize(mainNow.get("node:Person").size() + 1);
        assertThat(everything(graph, ReadTarget.branch("feat")).get("node:Person"))
                .hasSize(featNow.get("node:Person").size() + 1);
    }

    @Test
    void aBranchKeepsTheMainFilesItSharesEvenWhenMainKeepsOneCommit() {
        var featNow = everything(graph, ReadTarget.branch("feat"));
        assertThat(featNow.get("node:Person")).extracting(row -> row.get("name")).contains("Cy");
        assertThat(everything(graph, ReadTarget.main()).get("node:Person")).extracting(row -> row.get("name"))
                .doesNotContain("Cy");
        long personVersionsBefore = CleanupHistory.versionFiles(personPath());

        CleanupReport done = graph.cleanup(keep(1, true)).block();

        assertThat(done.versions()).isPositive();
        assertThat(CleanupHistory.versionFiles(personPath())).isLessThan(personVersionsBefore);
        assertThat(everything(graph, ReadTarget.branch("feat"))).isEqualTo(featNow);
        String featHead = newest(graph, "feat", 1).get(0);
        assertThat(everything(graph, ReadTarget.commit(featHead))).isEqualTo(featNow);
    }

    @Test
    void olderThanKeepsEveryYoungCommit() {
        var mainTravel = timeTravel(graph, "main");
        CleanupReport done = graph.cleanup(CleanupOptions.of(OptionalInt.empty(), Optional.of(Duration.ofDays(1)), true))
                .block();
        assertThat(done.versions()).as("only versions no commit pins (table creation) go").isPositive();
        mainTravel.forEach((id, state) -> assertThat(everything(graph, ReadTarget.commit(id))).isEqualTo(state));
    }

    @Test
    void refusesWhileARecoverySidecarIsPendingAndDeletesNothing() {
        graph.failpoints().arm(FailpointCatalog.SIDECAR_DELETE, new Failpoints.Action.Error());
        CleanupHistory.person(graph, "main", "Kim");
        graph.failpoints().disarm(FailpointCatalog.SIDECAR_DELETE);
        assertThat(graph.pendingSidecars().collectList().block()).hasSize(1);
        long before = diskUsage(root);

        assertThatThrownBy(() -> graph.cleanup(keep(1, true)).block()).isInstanceOf(RecoveryRequired.class)
                .hasMessageContaining("cleanup refuses while a recovery sidecar is pending");
        assertThat(diskUsage(root)).isEqualTo(before);
    }

    @Test
    void badOptionsAreRefusedBeforeAnything() {
        assertThatThrownBy(() -> CleanupOptions.of(OptionalInt.empty(), Optional.empty(), true))
                .isInstanceOf(BadRequest.class).hasMessageContaining("--keep N and/or --older-than D");
        assertThatThrownBy(() -> keep(0, true)).isInstanceOf(BadRequest.class).hasMessageContaining("--keep");
        assertThatThrownBy(() -> CleanupOptions.parseAge("--older-than", "7 days")).isInstanceOf(BadRequest.class)
                .hasMessageContaining("--older-than");
        assertThat(CleanupOptions.parseAge("--older-than", "7d")).isEqualTo(Duration.ofDays(7));
    }

    @Test
    void reclaimsFilesStagedByWritesThatNeverCommittedOncePastTheGracePeriod() throws IOException {
        TableRef person = TableRef.main(personPath().toString());
        var tables = services.tables();
        StagedHandle staged = tables.open(person, OptionalLong.empty())
                .flatMap(at -> tables.stageAppend(at, List.of(Map.of("id", "zz", "name", "Zed")), Map.of())).block();
        tables.discard(staged).block();
        long dataFiles = dataFiles();

        graph.cleanup(keep(100, true)).block();
        assertThat(dataFiles()).as("younger than the grace period: kept").isEqualTo(dataFiles);

        graph.cleanup(keep(100, true).withOrphanGrace(Duration.ZERO)).block();
        assertThat(dataFiles()).isEqualTo(dataFiles - 1);
        assertThat(everything(graph, ReadTarget.main()).get("node:Person")).extracting(row -> row.get("name"))
                .doesNotContain("Zed");
    }

    @Test
    void reclaimsATableForkNoGraphBranchOwnsButNeverOneALiveBranchUses() {
        String person = personPath().toString();
        var tables = services.tables();
        long head = tables.head(TableRef.main(person)).block();
        tables.createBranch(TableRef.main(person), head, "ghost").block();
        var featNow = everything(graph, ReadTarget.branch("feat"));

        CleanupReport young = graph.cleanup(keep(100, false)).block();
        assertThat(young.forks()).as("younger than the grace period").isEmpty();
        CleanupReport preview = graph.cleanup(keep(100, false).withOrphanGrace(Duration.ZERO)).block();
        String location = root.relativize(personPath()).toString();
        assertThat(preview.forks()).containsExactly(location + "@ghost");
        assertThat(tables.listBranches(person).block()).extracting(b -> b.name()).contains("ghost", "feat");

        CleanupReport done = graph.cleanup(keep(100, true).withOrphanGrace(Duration.ZERO)).block();
        assertThat(done.forks()).containsExactly(location + "@ghost");
        assertThat(tables.listBranches(person).block()).extracting(b -> b.name()).containsExactly("feat");
        assertThat(everything(graph, ReadTarget.branch("feat"))).isEqualTo(featNow);
    }

    private Path personPath() {
        return root.resolve(graph.snapshot(ReadTarget.main()).block().table("node:Person").orElseThrow().path());
    }

    private long dataFiles() throws IOException {
        try (Stream<Path> files = Files.list(personPath().resolve("data"))) {
            return files.count();
        }
    }
}
