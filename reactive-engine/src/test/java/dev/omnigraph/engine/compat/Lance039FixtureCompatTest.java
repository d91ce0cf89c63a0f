package dev.omnigraph.engine.compat;

import dev.omnigraph.engine.internal.HandleInternals;
import static dev.omnigraph.engine.compat.Fixture039.BASE;
import static dev.omnigraph.engine.compat.Fixture039.FEATURE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.compat.Fixture039.BranchRecord;
import dev.omnigraph.engine.compat.Fixture039.CommitRecord;
import dev.omnigraph.engine.compat.Fixture039.PendingRecord;
import dev.omnigraph.engine.compat.Fixture039.PendingWrite;
import dev.omnigraph.engine.crash.CrashHarness;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.recovery.SidecarStore;
import dev.omnigraph.recovery.SidecarRecovery;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.testing.StorageFixture;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Opens the graph roots the Lance 0.39 build wrote ({@code src/test/resources/compat/lance039/}, made by
 * {@link Fixture039Main}; {@code expected.json} says what they hold) with the build under test, through the public
 * API, each from a copy in a temporary directory (the resources are never written): every recorded commit reads back
 * exactly by time travel on main and on the branch; each root left with a pending recovery sidecar recovers to exactly
 * the graph before its write or exactly the graph after it, with its sidecar gone; and the base then takes writes on
 * main and the branch, a merge, optimize and cleanup, and reads back what the 0.39 build made of the same steps.
 *
 * <p>Copies are re-homed ({@link LanceBasePaths}) because Lance records a branch's parent dataset by absolute path;
 * {@link #aCopyThatIsNotRehomedReadsItsBranchFromWhereTheFixtureWasWritten} pins that behaviour.
 *
 * <p>To regenerate the fixture (only ever on the 0.39 build, which the generator checks):
 * {@code mvn -o -q -pl reactive-engine test-compile dependency:build-classpath -Dmdep.outputFile=cp.txt
 * -Dmdep.includeScope=test}, then from {@code reactive-engine/}: {@code java --add-opens=java.base/java.nio=ALL-UNNAMED
 * -cp target/test-classes:target/classes:$(cat cp.txt) dev.omnigraph.engine.compat.Fixture039Main
 * src/test/resources/compat/lance039}.
 */
class Lance039FixtureCompatTest {
    static StorageServices services;
    static Path fixture;
    static Fixture039.Expected expected;

    @BeforeAll
    static void start() throws IOException, URISyntaxException {
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
        fixture = Path.of(Objects.requireNonNull(Lance039FixtureCompatTest.class.getClassLoader()
                .getResource(Fixture039.RESOURCE), Fixture039.RESOURCE).toURI());
        expected = Fixture039.JSON.readValue(fixture.resolve(Fixture039.EXPECTED).toFile(), Fixture039.Expected.class);
    }

    @AfterAll
    static void stop() {
        services.tables().close();
    }

    /**
     * A copy of fixture root {@code name} under {@code dir}, re-homed: every branch manifest then names its parent
     * dataset inside the copy, and no manifest names the directory the fixture was written in.
     */
    static Path copyOf(String name, Path dir) throws IOException {
        Path copy = dir.resolve(name);
        CrashHarness.copy(fixture.resolve(name), copy);
        List<Path> rewritten = LanceBasePaths.rehome(copy.toRealPath());
        assertThat(rewritten).as("branch manifests re-homed").isNotEmpty()
                .allSatisfy(file -> assertThat(file.toString()).contains("/tree/" + FEATURE + "/_versions/"));
        try (Stream<Path> files = Files.walk(copy)) {
            for (Path manifest : files.filter(file -> file.toString().endsWith(".manifest")).toList()) {
                assertThat(new String(Files.readAllBytes(manifest), StandardCharsets.ISO_8859_1)).as("%s", manifest)
                        .doesNotContain(expected.writtenAt());
            }
        }
        return copy;
    }

    @Test
    void everyRecordedCommitReadsBackExactlyOnMainAndTheBranch(@TempDir Path dir) throws IOException {
        Fixture039.RootRecord base = expected.base();
        assertThat(base.branches()).containsOnlyKeys("main", FEATURE);
        assertThat(base.commits()).hasSizeGreaterThanOrEqualTo(10);
        try (Omnigraph graph = Omnigraph.open(services, copyOf(BASE, dir), OpenMode.READ_ONLY).block()) {
            assertThat(graph.branches().list().block()).extracting(BranchIdentity::name).containsExactlyInAnyOrder("main", FEATURE);
            for (Map.Entry<String, BranchRecord> branch : base.branches().entrySet()) {
                String name = branch.getKey();
                BranchRecord recorded = branch.getValue();
                assertThat(Fixture039.commits(graph, name)).as("commits of %s", name)
                        .extracting(GraphCommit::id).containsExactlyElementsOf(recorded.commits());
                assertThat(Fixture039.rows(graph, ReadTarget.branch(name))).as("head of %s", name).isEqualTo(recorded.rows());
                assertThat(Fixture039.queries(graph, ReadTarget.branch(name))).as("queries on %s", name)
                        .isEqualTo(recorded.queries());
            }
            for (CommitRecord recorded : base.commits().values()) {
                GraphCommit commit = graph.commit(recorded.id()).block();
                assertThat(commit.parentIds()).as("parents of %s", recorded.id()).isEqualTo(recorded.parentIds());
                assertThat(commit.operation()).isEqualTo(recorded.operation());
                assertThat(commit.actorId()).isEqualTo(Optional.ofNullable(recorded.actorId()));
                assertThat(commit.branch()).isEqualTo(Optional.ofNullable(recorded.branch()));
                ReadTarget at = ReadTarget.commit(recorded.id());
                assertThat(Fixture039.pins(graph, at)).as("pins at %s (%s)", recorded.id(), recorded.operation())
                        .isEqualTo(recorded.tables());
                assertThat(Fixture039.rows(graph, at)).as("rows at %s (%s)", recorded.id(), recorded.operation())
                        .isEqualTo(recorded.rows());
            }
        }
        // Spot checks that do not rest on the record: the history the generator wrote is there.
        CommitRecord head = base.commits().get(base.branches().get("main").commits().get(0));
        assertThat(head.rows().get("Person")).noneMatch(line -> line.contains("\"Cy\""))
                .anyMatch(line -> line.contains("\"name\":\"Ada\"") && line.contains("\"age\":37"));
        assertThat(base.commits().values()).extracting(CommitRecord::operation)
                .contains("ensure_indices", "mutation:addFay", "mutation:dropCy");
        assertThat(base.branches().get(FEATURE).rows().get("Person")).anyMatch(line -> line.contains("\"Gil\""));
        assertThat(base.branches().get("main").rows().get("Person")).noneMatch(line -> line.contains("\"Gil\""));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(PendingWrite.class)
    void aPendingWriteRecoversToExactlyTheOldOrTheNewGraph(PendingWrite write, @TempDir Path dir) throws IOException {
        PendingRecord recorded = expected.pending().get(write.root);
        Map<String, String> original = CrashHarness.digests(fixture.resolve(write.root));
        Path root = copyOf(write.root, dir);
        assertThat(sidecarFiles(root)).containsExactly(recorded.operationId() + ".json");

        try (Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_WRITE).block()) {
            assertThat(HandleInternals.of(graph).pendingSidecars().collectList().block()).as("sidecars after recovery").isEmpty();
            assertThat(sidecarFiles(root)).isEmpty();
            State old = new State(recorded.oldCommits(), recorded.oldRows());
            State made = new State(recorded.newCommits(), recorded.newRows());
            State now = new State(Fixture039.userCommits(graph, write.branch),
                    Fixture039.rows(graph, ReadTarget.branch(write.branch)));
            assertThat(now).as("%s after recovery: exactly the old graph or exactly the new one", write).isIn(old, made);
            String outcome = now.equals(made) ? "new" : "old";
            assertThat(outcome).as("the outcome the protocol prescribes at %s", recorded.failpoint())
                    .isEqualTo(recorded.outcome());
            List<RecoveryRecord> audit = graph.recoveries().collectList().block();
            assertThat(audit).singleElement().satisfies(row -> {
                assertThat(row.operationId()).isEqualTo(recorded.operationId());
                assertThat(row.sidecarWriterKind()).isEqualTo(recorded.writerKind());
                assertThat(row.kind()).isEqualTo(outcome.equals("new") ? RecoveryRecord.Kind.RolledForward
                        : RecoveryRecord.Kind.RolledBack);
                assertThat(row.graphCommitId()).isIn(outcome.equals("new") ? List.of(Optional.of(recorded.newCommitId()))
                        : List.of(Optional.empty(), Optional.of(recorded.rollbackCommitId())));
            });
            GraphCommit head = graph.commits(write.branch).blockFirst();
            if (outcome.equals("new")) {
                assertThat(head.id()).isEqualTo(recorded.newCommitId());
            } else if (head.actorId().equals(Optional.of(SidecarRecovery.RECOVERY_ACTOR))) {
                assertThat(head.id()).isEqualTo(recorded.rollbackCommitId());
            }
            if (recorded.sourceBranch() != null) {
                assertThat(Fixture039.rows(graph, ReadTarget.branch(recorded.sourceBranch()))).as("source untouched")
                        .isEqualTo(recorded.sourceRows());
            }
            // The branch takes writes again.
            String commit = Fixture039.mutate(graph, write.branch, "addMainPerson").block();
            assertThat(graph.commits(write.branch).blockFirst().id()).isEqualTo(commit);
            assertThat(Fixture039.rows(graph, ReadTarget.branch(write.branch)).get("Person"))
                    .anyMatch(line -> line.contains("\"Kim\""));
        }
        assertThat(CrashHarness.digests(fixture.resolve(write.root))).as("the fixture itself is untouched").isEqualTo(original);
    }

    @Test
    void theBaseTakesWritesAMergeOptimizeAndCleanupLikeThe039Build(@TempDir Path dir) throws IOException {
        Fixture039.FollowUpRecord recorded = expected.followUp();
        Path root = copyOf(BASE, dir);
        String mergeCommit;
        try (Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_WRITE).block()) {
            mergeCommit = Fixture039.followUp(graph).block();
            assertThat(graph.commit(mergeCommit).block().parentIds()).hasSize(2);
            assertThat(HandleInternals.of(graph).pendingSidecars().collectList().block()).isEmpty();
        }
        try (Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_ONLY).block()) {
            Map<String, List<String>> main = Fixture039.rows(graph, ReadTarget.branch("main"));
            Map<String, List<String>> feature = Fixture039.rows(graph, ReadTarget.branch(FEATURE));
            assertThat(main.get("Person")).as("main has its own write and the branch's")
                    .anyMatch(line -> line.contains("\"Kim\"")).anyMatch(line -> line.contains("\"Lou\""))
                    .anyMatch(line -> line.contains("\"Gil\""))
                    .anyMatch(line -> line.contains("\"maintains the lance port\""));
            assertThat(main.get("Doc")).anyMatch(line -> line.contains("\"d3\""));
            assertThat(feature.get("Person")).anyMatch(line -> line.contains("\"Lou\""))
                    .noneMatch(line -> line.contains("\"Kim\""));
            assertThat(main).isEqualTo(recorded.mainRows());
            assertThat(feature).isEqualTo(recorded.featureRows());
            assertThat(Fixture039.queries(graph, ReadTarget.branch("main"))).isEqualTo(recorded.mainQueries());
            assertThat(graph.commits("main").map(GraphCommit::id).collectList().block()).contains(mergeCommit);
        }
    }

    /**
     * Lance keeps a branch's parent dataset as an absolute path: a copy that is not re-homed reads its branch from
     * the directory the generator wrote it in, which is gone. If this starts to pass, Lance (or the engine) re-homes
     * copied roots itself and {@link LanceBasePaths} can go.
     */
    @Test
    void aCopyThatIsNotRehomedReadsItsBranchFromWhereTheFixtureWasWritten(@TempDir Path dir) throws IOException {
        Path root = dir.resolve(BASE);
        CrashHarness.copy(fixture.resolve(BASE), root);
        assertThat(Files.exists(Path.of(expected.writtenAt()))).isFalse();
        try (Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_ONLY).block()) {
            assertThat(Fixture039.rows(graph, ReadTarget.branch("main"))).isEqualTo(expected.base().branches().get("main").rows());
            assertThatThrownBy(() -> graph.export(ReadTarget.branch(FEATURE), Set.of()).collectList().block())
                    .isInstanceOf(StorageFault.class)
                    .hasMessageContaining(Path.of(expected.writtenAt()).getParent().getFileName().toString());
        }
    }

    /** What a branch shows: its user-made commits (newest first) and every type's rows. */
    record State(List<String> commits, Map<String, List<String>> rows) {
    }

    static List<String> sidecarFiles(Path root) throws IOException {
        Path directory = root.resolve(SidecarStore.DIRECTORY);
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(file -> file.getFileName().toString()).filter(name -> name.endsWith(".json")).sorted().toList();
        }
    }

}
