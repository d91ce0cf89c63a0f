package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.branch.BranchResult;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.LanceBranch;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

/** Graph branches on real Lance datasets: lazy create, first-touch forks, isolation, delete rules, hostile names. */
class BranchTest extends ConstrainedGraphTest {
    static final String QUERIES = """
            query addPerson($name: String, $age: I32) { insert Person { name: $name, age: $age } }
            query addFriend($name: String, $friend: String) {
                insert Person { name: $name }
                insert Knows { from: $name, to: $friend }
            }
            query older($name: String) { update Person set { age: 99 } where name = $name }
            query drop($name: String) { delete Person where name = $name }
            query note($text: String) { insert Note { text: $text } }
            query people() { match { $p: Person } return { $p.name } order { $p.name asc } }
            """;


    @BeforeEach
    void seed() {
        graph.load("main", LoadMode.APPEND, ndjson(
                "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":36}}",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\",\"age\":41}}",
                "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Bob\"}"), LoadOptions.DEFAULT).block();
    }

    WriteOutcome mutate(String branch, String name, Map<String, Object> params) {
        return graph.mutate(branch, QUERIES, name, params, WriteOptions.DEFAULT).block();
    }

    List<Object> people(String branch) {
        return graph.query(ReadTarget.branch(branch), QUERIES, "people", Map.of()).block().rows()
                .map(row -> row.get(0)).collectList().block();
    }

    List<String> forksOf(String tableKey) {
        TableInfo table = graph.snapshot(ReadTarget.main()).block().table(tableKey).orElseThrow();
        return services.tables().listBranches(graph.root().resolve(table.path()).toString()).block().stream()
                .map(LanceBranch::name).toList();
    }

    List<String> branchNames() {
        return graph.branches().list().block().stream().map(BranchIdentity::name).toList();
    }

    @Test
    void aBranchIsLazyAndItsWritesStayOnIt() {
        BranchResult.Created created = graph.createBranch("feature", Optional.empty()).block();
        assertThat(created.identity().name()).isEqualTo("feature");
        assertThat(branchNames()).containsExactly("main", "feature");
        // Lazy: no table forked, every pin still reads main's datasets.
        assertThat(forksOf("node:Person")).isEmpty();
        GraphSnapshot fresh = graph.snapshot(ReadTarget.branch("feature")).block();
        assertThat(fresh.tables()).allSatisfy(table -> assertThat(table.lanceBranch()).isEmpty());
        assertThat(fresh.graphCommitId()).isEqualTo(graph.snapshot(ReadTarget.main()).block().graphCommitId());

        Map<String, Long> mainBefore = GraphTestSupport.versions(graph);
        GraphCommit first = mutate("feature", "addFriend", Map.of("name", "Cy", "friend", "Ada")).commit().orElseThrow();
        assertThat(first.branch()).contains("feature");
        assertThat(first.parentIds()).containsExactly(fresh.graphCommitId().orElseThrow());
        assertThat(GraphTestSupport.versions(graph)).as("main untouched").isEqualTo(mainBefore);
        assertThat(people("main")).containsExactly("Ada", "Bob");
        assertThat(people("feature")).containsExactly("Ada", "Bob", "Cy");
        TableInfo forked = graph.snapshot(ReadTarget.branch("feature")).block().table("node:Person").orElseThrow();
        assertThat(forked.lanceBranch()).contains("feature");
        assertThat(forksOf("node:Person")).containsExactly("feature");
        assertThat(forksOf("node:Company")).as("untouched tables stay inherited").isEmpty();

        // The parent's later writes are invisible on the branch; a second write reuses the fork.
        mutate("main", "addPerson", Map.of("name", "Dan", "age", 5));
        mutate("feature", "addPerson", Map.of("name", "Eve", "age", 7));
        assertThat(people("main")).containsExactly("Ada", "Bob", "Dan");
        assertThat(people("feature")).containsExactly("Ada", "Bob", "Cy", "Eve");
        assertThat(graph.snapshot(ReadTarget.branch("feature")).block().table("node:Person").orElseThrow().version())
                .isEqualTo(forked.version() + 1);
        assertThat(forksOf("node:Person")).containsExactly("feature");
        assertThat(graph.commits("feature").collectList().block()).extracting(GraphCommit::branchName)
                .startsWith("feature", "feature");
        assertThat(graph.sidecars().list().collectList().block()).isEmpty();
    }

    @Test
    void everyWriteKindWorksOnABranch() {
        graph.createBranch("work", Optional.empty()).block();
        mutate("work", "older", Map.of("name", "Ada"));
        mutate("work", "drop", Map.of("name", "Bob")); // cascades the Knows edge on the branch only
        graph.load("work", LoadMode.MERGE, ndjson("{\"type\":\"Person\",\"data\":{\"name\":\"Zoe\",\"age\":3}}"),
                LoadOptions.DEFAULT).block();
        graph.load("work", LoadMode.APPEND, ndjson("{\"type\":\"Note\",\"data\":{\"text\":\"hi\"}}"), LoadOptions.DEFAULT).block();
        mutate("work", "note", Map.of("text", "unkeyed"));
        graph.load("work", LoadMode.OVERWRITE, ndjson("{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}"),
                LoadOptions.DEFAULT).block();

        assertThat(people("work")).containsExactly("Ada", "Zoe");
        assertThat(people("main")).containsExactly("Ada", "Bob");
        List<String> exported = graph.export(ReadTarget.branch("work"), Set.of()).collectList().block();
        assertThat(exported).anyMatch(line -> line.contains("\"age\":99"));
        assertThat(exported).noneMatch(line -> line.contains("\"edge\":\"Knows\""));
        assertThat(exported).filteredOn(line -> line.contains("\"Note\"")).hasSize(2);
        assertThat(graph.export(ReadTarget.main(), Set.of()).collectList().block())
                .anyMatch(line -> line.contains("\"edge\":\"Knows\""));
    }

    @Test
    void branchesFromABranchAndFromACommitSeeTheirForkPoint() {
        graph.createBranch("a", Optional.empty()).block();
        String atFork = mutate("a", "addPerson", Map.of("name", "Cy", "age", 1)).commit().orElseThrow().id();
        BranchResult.Created child = graph.createBranch("b", Optional.of("a")).block();
        assertThat(child.identity().parent()).contains("a");
        mutate("a", "addPerson", Map.of("name", "Dan", "age", 2));
        assertThat(people("b")).containsExactly("Ada", "Bob", "Cy");
        mutate("b", "addPerson", Map.of("name", "Eve", "age", 3)); // forks a's fork
        assertThat(people("b")).containsExactly("Ada", "Bob", "Cy", "Eve");
        assertThat(people("a")).containsExactly("Ada", "Bob", "Cy", "Dan");

        graph.createBranch("c", Optional.of(atFork)).block();
        assertThat(people("c")).containsExactly("Ada", "Bob", "Cy");
        assertThat(graph.snapshot(ReadTarget.branch("c")).block().graphCommitId()).contains(atFork);
        assertThatThrownBy(() -> graph.createBranch("d", Optional.of("nope")).block()).isInstanceOf(NotFound.class);
        assertThat(branchNames()).containsExactly("main", "a", "b", "c");
    }

    @Test
    void twoBranchesWriteTheSameTableConcurrentlyAndNeitherSeesTheOther() {
        graph.createBranch("left", Optional.empty()).block();
        graph.createBranch("right", Optional.empty()).block();
        Mono.zip(graph.mutate("left", QUERIES, "addPerson", Map.of("name", "Lee", "age", 1), WriteOptions.DEFAULT),
                graph.mutate("right", QUERIES, "addPerson", Map.of("name", "Ray", "age", 2), WriteOptions.DEFAULT)).block();
        assertThat(people("left")).containsExactly("Ada", "Bob", "Lee");
        assertThat(people("right")).containsExactly("Ada", "Bob", "Ray");
        assertThat(people("main")).containsExactly("Ada", "Bob");
        assertThat(forksOf("node:Person")).containsExactly("left", "right");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "main", "..", "a/../b", "../escape", "/abs", "a//b", "a b", "__internal", "x.lock",
            "caf\u00e9", "tab\tname", "nul\u0000", "bell\u0007", "dir\\win", "a/"})
    void hostileNamesAreRefusedBeforeAnyPhysicalStep(String name) {
        long manifestBranchesBefore = manifestRefs();
        assertThatThrownBy(() -> graph.createBranch(name, Optional.empty()).block()).isInstanceOf(BadRequest.class);
        assertThat(manifestRefs()).isEqualTo(manifestBranchesBefore);
        assertThat(dir.resolve("g/__manifest/tree")).doesNotExist();
    }

    @Test
    void overLongAndPrefixClashingNamesAreRefused() {
        assertThatThrownBy(() -> graph.createBranch("x".repeat(5000), Optional.empty()).block())
                .isInstanceOf(BadRequest.class).hasMessageContaining("longer than");
        graph.createBranch("team", Optional.empty()).block();
        for (String clash : List.of("team/a", "te", "teamwork", "t/eam")) {
            assertThatThrownBy(() -> graph.createBranch(clash, Optional.empty()).block()).as(clash)
                    .isInstanceOf(BadRequest.class).hasMessageContaining("clashes with existing branch 'team'");
        }
        assertThatThrownBy(() -> graph.createBranch("team", Optional.empty()).block())
                .isInstanceOf(Conflict.class).hasMessageContaining("already exists");
        assertThat(branchNames()).containsExactly("main", "team");
        // main's data lives outside tree/, so a name sharing its prefix is fine.
        graph.createBranch("maintenance", Optional.empty()).block();
        assertThat(branchNames()).containsExactly("main", "maintenance", "team");
    }

    long manifestRefs() {
        return services.tables().listBranches(graph.root().resolve("__manifest").toString()).block().size();
    }

    @Test
    void deleteRules() {
        assertThatThrownBy(() -> graph.deleteBranch("main").block()).isInstanceOf(BadRequest.class);
        assertThatThrownBy(() -> graph.deleteBranch("ghost").block()).isInstanceOf(NotFound.class);
        graph.createBranch("parent", Optional.empty()).block();
        mutate("parent", "addPerson", Map.of("name", "Cy", "age", 1));
        graph.createBranch("kid", Optional.of("parent")).block();
        assertThatThrownBy(() -> graph.deleteBranch("parent").block()).isInstanceOf(Conflict.class)
                .hasMessageContaining("kid");

        graph.deleteBranch("kid").block();
        BranchResult.Deleted deleted = graph.deleteBranch("parent").block();
        assertThat(deleted.leftovers()).isEmpty();
        assertThat(branchNames()).containsExactly("main");
        assertThat(forksOf("node:Person")).as("forks reclaimed").isEmpty();
        assertThat(people("main")).containsExactly("Ada", "Bob");
    }

    @Test
    void deleteThenRecreateIsANewIncarnationAndAStaleWriteIsRefused() {
        graph.createBranch("b", Optional.empty()).block();
        mutate("b", "addPerson", Map.of("name", "Cy", "age", 1));
        String staleHead = graph.snapshot(ReadTarget.branch("b")).block().graphCommitId().orElseThrow();
        assertThat(graph.manifest().kept("b")).isPresent();
        graph.deleteBranch("b").block();
        // Its kept state (row addresses, tail) must not serve the next incarnation, whose versions start over.
        assertThat(graph.manifest().kept("b")).isEmpty();
        BranchResult.Created again = graph.createBranch("b", Optional.empty()).block();
        assertThat(people("b")).containsExactly("Ada", "Bob");
        // A writer still holding the old incarnation's head is refused, nothing lands.
        assertThatThrownBy(() -> graph.mutate("b", QUERIES, "addPerson", Map.of("name", "Old", "age", 1),
                WriteOptions.DEFAULT.ifGraphCommit(staleHead)).block())
                .isInstanceOf(dev.omnigraph.storage.error.PreconditionFailed.class);
        // The new incarnation forks afresh (the old fork was reclaimed) and works.
        mutate("b", "addPerson", Map.of("name", "New", "age", 1));
        assertThat(people("b")).containsExactly("Ada", "Bob", "New");
        assertThat(again.identity().name()).isEqualTo("b");
    }

    /**
     * Writers plan under their branch gate, so in one process a delete cannot slip between a write's plan and its
     * publish: it waits for the write, and the write's effect goes with the deleted branch. (A write planned against
     * an old incarnation is still refused by the recheck under the gates; only another process can now cause it.)
     */
    @Test
    void aDeleteWaitsForAWriteInFlightOnTheBranchAndARecreatedBranchStartsFromItsParent() {
        graph.createBranch("b", Optional.empty()).block(Duration.ofSeconds(60));
        var parked = graph.failpoints().park("mutation.after_prepare");
        var write = graph.mutate("b", QUERIES, "older", Map.of("name", "Ada"), WriteOptions.DEFAULT).toFuture();
        parked.reached().block();
        var delete = graph.deleteBranch("b").toFuture();
        assertThat(delete).isNotDone();
        parked.release();
        assertThat(write.join().commit()).isPresent();
        delete.join();
        graph.failpoints().disarm("mutation.after_prepare");
        graph.load("main", LoadMode.APPEND, ndjson("{\"type\":\"Person\",\"data\":{\"name\":\"Cy\",\"age\":1}}"),
                LoadOptions.DEFAULT).block(Duration.ofSeconds(60));
        graph.createBranch("b", Optional.empty()).block(Duration.ofSeconds(60));
        assertThat(graph.export(ReadTarget.branch("b"), Set.of("Person")).collectList().block(Duration.ofSeconds(60)))
                .noneMatch(line -> line.contains("\"age\":99"));
        assertThat(people("b")).containsExactly("Ada", "Bob", "Cy");
    }

    @Test
    void aSidecarLeftOnADeletedBranchIsDiscardedAsAnOrphanWithAnAuditRow() {
        graph.createBranch("doomed", Optional.empty()).block();
        // The write fails after its first commit and its own compensation fails too: the sidecar stays.
        graph.failpoints().arm("mutation.after_commit:1", new dev.omnigraph.storage.Failpoints.Action.Error());
        graph.failpoints().arm(dev.omnigraph.storage.FailpointCatalog.AUDIT_RECORD, new dev.omnigraph.storage.Failpoints.Action.Error());
        assertThatThrownBy(() -> mutate("doomed", "addFriend", Map.of("name", "Cy", "friend", "Ada")))
                .isInstanceOf(dev.omnigraph.storage.error.RecoveryRequired.class);
        graph.failpoints().disarm("mutation.after_commit:1");
        graph.failpoints().disarm(dev.omnigraph.storage.FailpointCatalog.AUDIT_RECORD);
        assertThat(graph.pendingSidecars().collectList().block()).singleElement()
                .satisfies(sidecar -> assertThat(sidecar.branch()).isEqualTo("doomed"));

        graph.deleteBranch("doomed").block();
        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
        assertThat(graph.recoveries().collectList().block()).singleElement().satisfies(record -> assertThat(record.kind())
                .isEqualTo(dev.omnigraph.recovery.RecoveryRecord.Kind.OrphanedBranchDiscarded));
        assertThat(forksOf("node:Person")).isEmpty();
        assertThat(people("main")).containsExactly("Ada", "Bob");
    }

    @Test
    void aTreeLeftByAnInterruptedCreateIsReclaimedByTheNextCreate() throws Exception {
        graph.createBranch("half", Optional.empty()).block();
        // Lance creates the tree before the ref: a crash in between leaves exactly this shape.
        java.nio.file.Files.delete(dir.resolve("g/__manifest/_refs/branches/half.json"));
        assertThat(branchNames()).containsExactly("main");
        assertThat(dir.resolve("g/__manifest/tree/half")).isDirectory();
        graph.createBranch("half", Optional.empty()).block();
        assertThat(branchNames()).containsExactly("main", "half");
        mutate("half", "addPerson", Map.of("name", "Cy", "age", 1));
        assertThat(people("half")).containsExactly("Ada", "Bob", "Cy");
    }
}
