package dev.omnigraph.engine;

import static dev.omnigraph.engine.CleanupHistory.everything;
import static dev.omnigraph.engine.CleanupHistory.newest;
import static dev.omnigraph.engine.CleanupHistory.timeTravel;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.cleanup.CleanupOptions;
import dev.omnigraph.engine.cleanup.CleanupReport;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.LanceBranch;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * cleanup of the graph's own history: {@code __manifest} keeps exactly the versions the retention rule needs (kept
 * commits, each branch's current state and fork point, merge bases), and the recovery audit log its latest version.
 */
class ManifestCleanupTest extends ConstrainedGraphTest {
    Path root;

    @BeforeEach
    void history() {
        root = dir.resolve("g");
        CleanupHistory.build(graph);
    }

    static CleanupOptions keep(int n) {
        return CleanupOptions.of(OptionalInt.of(n), Optional.empty(), true);
    }

    @Test
    void keepsExactlyTheManifestVersionsRetainedStatesWereReadAtAndEveryKeptPointStillReads() {
        var mainTravel = timeTravel(graph, "main");
        var featTravel = timeTravel(graph, "feat");
        var featNow = everything(graph, ReadTarget.branch("feat"));
        Path manifest = root.resolve("__manifest");
        long forkPoint = services.tables().listBranches(manifest.toString()).block().stream()
                .filter(branch -> branch.name().equals("feat")).findFirst().map(LanceBranch::parentVersion).orElseThrow();
        Set<Long> expectedMain = new TreeSet<>();
        expectedMain.add(graph.snapshot(ReadTarget.main()).block().manifestVersion());
        expectedMain.add(forkPoint);
        graph.commits("main").take(3).map(GraphCommit::manifestVersion).toStream().forEach(expectedMain::add);
        // feat's third newest commit is main's, inherited at the fork: its state is kept on main's ref.
        graph.commits("feat").take(3).filter(commit -> commit.branchName().equals("main"))
                .map(GraphCommit::manifestVersion).toStream().forEach(expectedMain::add);
        long mainVersionsBefore = versions(manifest).size();

        CleanupReport done = graph.cleanup(keep(3)).block();

        assertThat(done.tables()).extracting(CleanupReport.TableCleanup::location).contains("__manifest");
        assertThat(versions(manifest)).as("main's __manifest versions").isEqualTo(expectedMain);
        assertThat(mainVersionsBefore).isGreaterThan(expectedMain.size());
        for (String id : newest(graph, "main", 3)) {
            assertThat(everything(graph, ReadTarget.commit(id))).as("main commit %s", id).isEqualTo(mainTravel.get(id));
        }
        for (String id : newest(graph, "feat", 3)) {
            assertThat(everything(graph, ReadTarget.commit(id))).as("feat commit %s", id).isEqualTo(featTravel.get(id));
        }
        assertThat(everything(graph, ReadTarget.branch("feat"))).isEqualTo(featNow);
        String genesis = graph.commits("main").last().map(GraphCommit::id).block();
        assertThatThrownBy(() -> graph.snapshot(ReadTarget.commit(genesis)).block())
                .as("a commit outside retention: its manifest version is gone").isInstanceOf(NotFound.class);
        assertThatThrownBy(() -> graph.createBranch("old", Optional.of(genesis)).block()).isInstanceOf(NotFound.class);
        assertThat(graph.commits("main").collectList().block()).as("the lineage itself stays")
                .hasSize(mainTravel.size());

        CleanupHistory.person(graph, "main", "Ivy");
        assertThat(everything(graph, ReadTarget.main()).get("node:Person")).extracting(row -> row.get("name")).contains("Ivy");
        assertThat(graph.cleanup(keep(3)).block().tables()).extracting(CleanupReport.TableCleanup::location)
                .as("one more commit: one main manifest version and one table version go").contains("__manifest");
    }

    @Test
    void aMergeAfterCleanupStillFindsItsBase() {
        graph.mergeBranch("main", "feat", false, Optional.empty()).block();
        CleanupHistory.person(graph, "main", "Kay");
        CleanupHistory.person(graph, "main", "Lu");
        CleanupHistory.person(graph, "feat", "Mo");

        graph.cleanup(keep(1)).block();
        graph.mergeBranch("feat", "main", false, Optional.empty()).block();

        assertThat(everything(graph, ReadTarget.main()).get("node:Person")).extracting(row -> (String) row.get("name"))
                .contains("Fay", "Gus", "Hal", "Kay", "Lu", "Mo").doesNotContain("Cy");
    }

    @Test
    void theAuditLogKeepsItsLatestVersionAndEveryRecord() {
        for (String name : new String[] {"Ro", "Sy", "Ty"}) {
            graph.failpoints().arm(FailpointCatalog.SIDECAR_DELETE, new Failpoints.Action.Error());
            CleanupHistory.person(graph, "main", name);
            graph.failpoints().disarm(FailpointCatalog.SIDECAR_DELETE);
            CleanupHistory.note(graph, "main", "heal " + name); // the next write rolls the leftover forward, audited
        }
        Path audit = root.resolve("_graph_commit_recoveries");
        var records = graph.recoveries().collectList().block();
        assertThat(records).hasSize(3);
        assertThat(versions(audit)).hasSizeGreaterThan(1);

        CleanupReport done = graph.cleanup(keep(3)).block();

        assertThat(done.tables()).extracting(CleanupReport.TableCleanup::location).contains("_graph_commit_recoveries");
        assertThat(versions(audit)).hasSize(1);
        assertThat(graph.recoveries().collectList().block()).isEqualTo(records);
    }

    @Test
    void aNewGraphCompressesItsLineageAndCleanupKeepsAllOfIt() {
        var manifest = services.tables().open(TableRef.main(root.resolve("__manifest").toString()), OptionalLong.empty())
                .block();
        for (String text : new String[] {ManifestSchema.OBJECT_ID, ManifestSchema.METADATA}) {
            assertThat(manifest.schema().findField(text).getMetadata()).as(text).containsAllEntriesOf(ManifestSchema.ZSTD);
        }
        var lineage = graph.commits("main").collectList().block();

        graph.cleanup(keep(1)).block();

        assertThat(graph.commits("main").collectList().block()).as("every commit, not only the kept one")
                .isEqualTo(lineage);
    }

    /** The versions whose manifests are on disk under {@code dataset}'s main ref (Lance's V2 names invert them). */
    static Set<Long> versions(Path dataset) {
        try (Stream<Path> list = Files.list(dataset.resolve("_versions"))) {
            return list.map(path -> path.getFileName().toString()).filter(name -> name.endsWith(".manifest"))
                    .map(name -> name.substring(0, name.length() - ".manifest".length()))
                    .map(digits -> digits.length() == 20 ? ~Long.parseUnsignedLong(digits) : Long.parseLong(digits))
                    .collect(Collectors.toCollection(TreeSet::new));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
