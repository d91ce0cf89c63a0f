package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.internal.HandleInternals;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.LanceBranch;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Kills a child JVM at every failpoint of a branch write that first-touch forks two tables, and of branch create
 * and delete; the reopened graph must be exactly before or after, with no sidecar, no unowned fork left behind
 * by a rolled-back write, main untouched, and the branch writable again.
 */
@Execution(ExecutionMode.CONCURRENT)
class BranchCrashTest {
    static final String BRANCH = "feature";
    static StorageServices services;

    @TempDir
    static Path scratch;
    static Path template;
    static CrashHarness.GraphState mainState;
    static CrashHarness.GraphState before;
    static CrashHarness.GraphState after;

    /** What the child runs. */
    enum Action {
        /** A mutation on the branch touching two inherited tables (Person, Knows). */
        WRITE {
            @Override
            Mono<?> run(Omnigraph graph) {
                return graph.mutate(BRANCH, """
                        query insert() {
                            insert Person { name: "Zed", age: 5 }
                            insert Knows { from: "Zed", to: "Ada" }
                        }
                        """, "insert", java.util.Map.of(), dev.omnigraph.engine.WriteOptions.DEFAULT);
            }
        },
        CREATE {
            @Override
            Mono<?> run(Omnigraph graph) {
                return graph.createBranch("fresh", Optional.empty());
            }
        },
        DELETE {
            @Override
            Mono<?> run(Omnigraph graph) {
                return WRITE.run(graph).then(graph.deleteBranch(BRANCH));
            }
        };

        abstract Mono<?> run(Omnigraph graph);
    }

    @BeforeAll
    static void start() throws Exception {
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
        template = scratch.resolve("template");
        Omnigraph seeded = Omnigraph.init(services, template, CrashScenario.SCHEMA).block();
        seeded.load("main", LoadMode.APPEND, Flux.just(ByteBuffer.wrap(CrashScenario.SEED.getBytes(StandardCharsets.UTF_8))),
                LoadOptions.DEFAULT).block();
        seeded.createBranch(BRANCH, Optional.empty()).block();
        mainState = CrashHarness.state(seeded, "main", services);
        before = CrashHarness.state(seeded, BRANCH, services);
        Path reference = scratch.resolve("reference");
        CrashHarness.copy(template, reference);
        Omnigraph ref = Omnigraph.open(services, reference, OpenMode.READ_WRITE).block();
        Action.WRITE.run(ref).block();
        after = CrashHarness.state(ref, BRANCH, services);
        assertThat(after).isNotEqualTo(before);
    }

    @AfterAll
    static void stop() {
        services.tables().close();
    }

    static Stream<Arguments> writeCrashes() {
        RecoveryRecord.Kind back = RecoveryRecord.Kind.RolledBack;
        RecoveryRecord.Kind forward = RecoveryRecord.Kind.RolledForward;
        return Stream.of(
                Arguments.of("mutation.after_gates", null),
                Arguments.of("mutation.after_arm", back),
                Arguments.of("mutation.after_fork", back),
                Arguments.of("mutation.after_commit:1", back),
                Arguments.of("mutation.after_commit:2", back),
                // Dies writing the confirm while its publish fails: every table committed, the sidecar still Armed.
                Arguments.of("mutation.before_manifest_commit=error," + FailpointCatalog.SIDECAR_WRITE + "=exit@2", back),
                Arguments.of("mutation.after_confirm", forward),
                Arguments.of("mutation.after_publish", forward),
                Arguments.of("mutation.before_sidecar_delete", forward));
    }

    @ParameterizedTest(name = "branch write killed at {0}")
    @MethodSource("writeCrashes")
    void aKilledFirstTouchWriteLeavesTheBranchBeforeOrAfter(String point, RecoveryRecord.Kind audited, @TempDir Path dir)
            throws Exception {
        Path root = dir.resolve("graph");
        CrashHarness.copy(template, root);
        String spec = point.contains("=") ? point : point + "=exit";
        assertThat(runChild(root, Action.WRITE, spec, dir.resolve("tmp"))).as("child died").isTrue();

        Omnigraph reopened = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
        assertThat(HandleInternals.of(reopened).pendingSidecars().collectList().block()).isEmpty();
        assertThat(CrashHarness.state(reopened, "main", services)).as("main untouched").isEqualTo(mainState);
        List<RecoveryRecord> audit = reopened.recoveries().collectList().block();
        if (audited == RecoveryRecord.Kind.RolledForward) {
            assertThat(CrashHarness.state(reopened, BRANCH, services)).isEqualTo(after);
        } else {
            assertThat(CrashHarness.state(reopened, BRANCH, services)).isEqualTo(before);
            assertThat(forks(reopened, "node:Person")).as("a rolled-back fork is reclaimed").isEmpty();
            assertThat(forks(reopened, "edge:Knows")).isEmpty();
            // The branch is writable again and forks afresh.
            Action.WRITE.run(reopened).block();
            assertThat(CrashHarness.state(reopened, BRANCH, services)).isEqualTo(after);
        }
        if (audited == null) {
            assertThat(audit).isEmpty();
        } else {
            assertThat(audit).singleElement().satisfies(r -> assertThat(r.kind()).isEqualTo(audited));
        }
        assertThat(HandleInternals.of(reopened).gates().allIdle()).isTrue();
    }

    @ParameterizedTest(name = "branch create killed at {0}")
    @MethodSource("createCrashes")
    void aKilledCreateLeavesNoBranchOrAWholeOne(String point, boolean exists, @TempDir Path dir) throws Exception {
        Path root = dir.resolve("graph");
        CrashHarness.copy(template, root);
        assertThat(runChild(root, Action.CREATE, point + "=exit", dir.resolve("tmp"))).isTrue();
        Omnigraph reopened = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
        assertThat(names(reopened).contains("fresh")).isEqualTo(exists);
        if (!exists) {
            reopened.createBranch("fresh", Optional.empty()).block();
        }
        assertThat(CrashHarness.state(reopened, "fresh", services).rows()).isEqualTo(mainState.rows());
    }

    static Stream<Arguments> createCrashes() {
        return Stream.of(Arguments.of(FailpointCatalog.BRANCH_BEFORE_CREATE, false),
                Arguments.of(FailpointCatalog.BRANCH_AFTER_CREATE, true));
    }

    @Test
    void aDeleteKilledAfterItsAuthorityIsGoneLeavesOnlyUnreachableForks(@TempDir Path dir) throws Exception {
        Path root = dir.resolve("graph");
        CrashHarness.copy(template, root);
        assertThat(runChild(root, Action.DELETE, FailpointCatalog.BRANCH_AFTER_DELETE_AUTHORITY + "=exit",
                dir.resolve("tmp"))).isTrue();
        Omnigraph reopened = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
        assertThat(names(reopened)).containsExactly("main");
        assertThat(forks(reopened, "node:Person")).as("left for cleanup").containsExactly(BRANCH);
        assertThat(CrashHarness.state(reopened, "main", services)).isEqualTo(mainState);
        // Recreating the name gets a branch that reads main, and its first write replaces the stale fork.
        reopened.createBranch(BRANCH, Optional.empty()).block();
        assertThat(CrashHarness.state(reopened, BRANCH, services)).isEqualTo(before);
        Action.WRITE.run(reopened).block();
        assertThat(CrashHarness.state(reopened, BRANCH, services)).isEqualTo(after);
    }

    static boolean runChild(Path root, Action action, String failpoints, Path tmp) throws Exception {
        return CrashHarness.diedAt(BranchCrashMain.class, root, action.name(), failpoints, tmp);
    }

    static List<String> names(Omnigraph graph) {
        return graph.branches().list().block().stream().map(BranchIdentity::name).toList();
    }

    static List<String> forks(Omnigraph graph, String tableKey) {
        var table = graph.snapshot(dev.omnigraph.engine.ReadTarget.main()).block().table(tableKey).orElseThrow();
        return services.tables().listBranches(graph.root().resolve(table.path()).toString()).block().stream()
                .map(LanceBranch::name).toList();
    }
}
