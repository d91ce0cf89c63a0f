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
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.ObjectStore.StoredObject;
import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.storage.testing.S3TestServer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code cleanup} on an S3 root (S3Proxy on loopback, in this JVM), through the same collector as local roots: the
 * kept commits of every branch read exactly as before from a fresh handle, the objects the report names are gone
 * and nothing else is, a branch's table forks and their fork points stay, a pending sidecar refuses with nothing
 * deleted, and a never-committed staged file goes only once past the grace period.
 */
class S3CleanupTest {
    static final Duration WAIT = Duration.ofSeconds(120);
    static S3TestServer server;
    StorageServices services;
    GraphRoot.S3 root;
    Omnigraph graph;

    @BeforeAll
    static void startServer() throws Exception {
        server = S3TestServer.start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @BeforeEach
    void history(org.junit.jupiter.api.TestInfo test) {
        services = EngineFixture.services();
        root = server.root("cleanup", test.getTestMethod().orElseThrow().getName());
        graph = Omnigraph.init(services, root, GraphTestSupport.CONSTRAINED).block(WAIT);
        CleanupHistory.build(graph);
    }

    @AfterEach
    void close() {
        graph.close();
        EngineFixture.close(services);
    }

    static CleanupOptions keep(int n, boolean confirm) {
        return CleanupOptions.of(OptionalInt.of(n), Optional.empty(), confirm);
    }

    @Test
    void keptCommitsReadExactlyAndEveryOtherVersionIsDeleted() {
        var mainTravel = timeTravel(graph, "main");
        var featTravel = timeTravel(graph, "feat");
        var mainNow = everything(graph, ReadTarget.main());
        var featNow = everything(graph, ReadTarget.branch("feat"));
        String person = personLocation();
        List<LanceBranch> personForks = services.tables().listBranches(root.uri() + "/" + person).block(WAIT);
        assertThat(personForks).extracting(LanceBranch::name).containsExactly("feat");
        Map<String, Long> before = objects();

        CleanupReport preview = graph.cleanup(keep(2, false)).block(WAIT);
        assertThat(preview.versions()).isPositive();
        assertThat(preview.tables()).extracting(CleanupReport.TableCleanup::location)
                .contains(person, "__manifest");
        assertThat(objects().keySet()).as("a preview deletes nothing").isEqualTo(before.keySet());

        CleanupReport done = graph.cleanup(keep(2, true)).block(WAIT);
        assertThat(done.tables()).isEqualTo(preview.tables());
        Map<String, Long> after = objects();
        assertThat(before.keySet()).containsAll(after.keySet());
        Map<String, Long> removed = new HashMap<>(before);
        removed.keySet().removeAll(after.keySet());
        assertThat(removed).as("exactly the objects the report counts").hasSize((int) (done.versions() + done.files()));
        assertThat(removed.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(done.bytes());
        assertThat(removed.keySet()).as("old versions of the forked table are gone")
                .anyMatch(key -> key.startsWith(person + "/_versions/"));

        // The fork point of feat's Person fork stays on main, and so does every version feat's table fork has.
        long forkPoint = personForks.get(0).parentVersion();
        assertThat(after).containsKey(person + "/_versions/" + Long.toUnsignedString(-1L - forkPoint) + ".manifest");
        assertThat(removed.keySet()).noneMatch(key -> key.startsWith(person + "/tree/feat/_versions/"));

        graph.close();
        graph = Omnigraph.open(services, root, OpenMode.READ_WRITE).block(WAIT);
        for (String id : newest(graph, "main", 2)) {
            assertThat(everything(graph, ReadTarget.commit(id))).as("main commit %s", id).isEqualTo(mainTravel.get(id));
        }
        for (String id : newest(graph, "feat", 2)) {
            assertThat(everything(graph, ReadTarget.commit(id))).as("feat commit %s", id).isEqualTo(featTravel.get(id));
        }
        assertThat(everything(graph, ReadTarget.main())).isEqualTo(mainNow);
        assertThat(everything(graph, ReadTarget.branch("feat"))).isEqualTo(featNow);
        String genesis = graph.commits("main").last().map(GraphCommit::id).block(WAIT);
        assertThatThrownBy(() -> everything(graph, ReadTarget.commit(genesis)))
                .as("a commit outside retention no longer reads");

        assertThat(graph.cleanup(keep(2, true)).block(WAIT).tables()).as("nothing left to collect").isEmpty();
        CleanupHistory.person(graph, "main", "Ivy");
        CleanupHistory.person(graph, "feat", "Jo");
        assertThat(everything(graph, ReadTarget.branch("feat")).get("node:Person"))
                .hasSize(featNow.get("node:Person").size() + 1);
    }

    @Test
    void refusesWhileARecoverySidecarIsPendingAndDeletesNothing() {
        graph.failpoints().arm(FailpointCatalog.SIDECAR_DELETE, new Failpoints.Action.Error());
        CleanupHistory.person(graph, "main", "Kim");
        graph.failpoints().disarm(FailpointCatalog.SIDECAR_DELETE);
        assertThat(graph.pendingSidecars().collectList().block(WAIT)).hasSize(1);
        Set<String> before = objects().keySet();

        assertThatThrownBy(() -> graph.cleanup(keep(1, true)).block(WAIT)).isInstanceOf(RecoveryRequired.class)
                .hasMessageContaining("cleanup refuses while a recovery sidecar is pending");
        assertThat(objects().keySet()).as("nothing deleted").isEqualTo(before);
    }

    @Test
    void aStagedFileNoVersionReferencesGoesOnlyOncePastTheGracePeriod() {
        String person = personLocation();
        Set<String> committed = dataFiles(person);
        var tables = services.tables();
        StagedHandle staged = tables.open(TableRef.main(root.uri() + "/" + person), OptionalLong.empty())
                .flatMap(at -> tables.stageAppend(at, List.of(Map.of("id", "zz", "name", "Zed")), Map.of()))
                .block(WAIT);
        tables.discard(staged).block(WAIT);
        Set<String> stagedFiles = new TreeSet<>(dataFiles(person));
        stagedFiles.removeAll(committed);
        assertThat(stagedFiles).as("the staged write left its data file").hasSize(1);

        graph.cleanup(keep(100, true)).block(WAIT);
        assertThat(dataFiles(person)).as("younger than the grace period: kept").containsAll(stagedFiles);

        Clock later = Clock.fixed(Instant.now().plus(CleanupOptions.DEFAULT_ORPHAN_GRACE).plusSeconds(60), ZoneOffset.UTC);
        CleanupReport reclaimed = graph.cleanup(keep(100, true).withClock(later)).block(WAIT);
        assertThat(reclaimed.tables()).extracting(CleanupReport.TableCleanup::location,
                CleanupReport.TableCleanup::versions, CleanupReport.TableCleanup::files)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(person, 0, 1));
        assertThat(dataFiles(person)).isEqualTo(committed);
        assertThat(everything(graph, ReadTarget.main()).get("node:Person")).extracting(row -> row.get("name"))
                .doesNotContain("Zed");
    }

    @Test
    void aTableForkNoGraphBranchOwnsIsReclaimedButNotALiveBranchsFork() {
        String person = root.uri() + "/" + personLocation();
        var tables = services.tables();
        tables.createBranch(TableRef.main(person), tables.head(TableRef.main(person)).block(WAIT), "ghost").block(WAIT);
        var featNow = everything(graph, ReadTarget.branch("feat"));

        CleanupReport done = graph.cleanup(keep(100, true).withOrphanGrace(Duration.ZERO)).block(WAIT);
        assertThat(done.forks()).containsExactly(personLocation() + "@ghost");
        assertThat(tables.listBranches(person).block(WAIT)).extracting(LanceBranch::name).containsExactly("feat");
        assertThat(objects().keySet()).noneMatch(key -> key.startsWith(personLocation() + "/tree/ghost/"));
        assertThat(everything(graph, ReadTarget.branch("feat"))).isEqualTo(featNow);
    }

    private String personLocation() {
        return graph.snapshot(ReadTarget.main()).block(WAIT).table("node:Person").orElseThrow().path();
    }

    /** Every object under the root, key to size (the lease object is rewritten by renewals, but never deleted here). */
    private Map<String, Long> objects() {
        ObjectStore store = services.objectStore(root);
        return store.listObjects("").block(WAIT).stream()
                .collect(Collectors.toMap(StoredObject::key, StoredObject::bytes));
    }

    private Set<String> dataFiles(String location) {
        return services.objectStore(root).list(location + "/data/").block(WAIT).stream()
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
