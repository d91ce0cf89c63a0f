package dev.omnigraph.engine.crash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Kills a child JVM at every failpoint of a branch merge: a three-way merge into main (two tables: a three-way row
 * merge and an adopted delta) and a fast-forward into a branch that first-touch forks the table it changes. The
 * reopened graph must be exactly before or after on the target (rows and commit list), the source untouched, no
 * sidecar left, and exactly the audit row recovery owed; a rolled-back merge can be run again.
 */
@Execution(ExecutionMode.CONCURRENT)
class MergeCrashTest {
    static StorageServices services;

    @TempDir
    static Path scratch;
    static Path template;
    static final Map<Action, CrashHarness.GraphState> BEFORE = new java.util.EnumMap<>(Action.class);
    static final Map<Action, CrashHarness.GraphState> AFTER = new java.util.EnumMap<>(Action.class);
    static CrashHarness.GraphState feature;

    /** What the child runs. */
    enum Action {
        /** feature into main: Person changed on both sides (three-way), Knows only on feature (adopt). */
        INTO_MAIN("main") {
            @Override
            Mono<?> run(Omnigraph graph) {
                return graph.mergeBranch("feature", "main", false, Optional.empty());
            }
        },
        /** main into other, which has no commit of its own: a fast-forward that forks Person on other. */
        INTO_BRANCH("other") {
            @Override
            Mono<?> run(Omnigraph graph) {
                return graph.mergeBranch("main", "other", false, Optional.empty());
            }
        };

        final String target;

        Action(String target) {
            this.target = target;
        }

        abstract Mono<?> run(Omnigraph graph);
    }

    @BeforeAll
    static void start() throws Exception {
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
        template = scratch.resolve("template");
        Omnigraph seeded = Omnigraph.init(services, template, CrashScenario.SCHEMA).block();
        load(seeded, "main", CrashScenario.SEED);
        seeded.createBranch("feature", Optional.empty()).block();
        seeded.createBranch("other", Optional.empty()).block();
        seeded.mutate("feature", """
                query insert() {
                    insert Person { name: "Zed", age: 5 }
                    insert Knows { from: "Zed", to: "Ada" }
                }
                """, "insert", Map.of(), WriteOptions.DEFAULT).block();
        load(seeded, "feature", "{\"type\":\"Person\",\"data\":{\"name\":\"Cy\",\"age\":21}}\n");
        load(seeded, "main", "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":77}}\n");
        feature = CrashHarness.state(seeded, "feature", services);
        for (Action action : Action.values()) {
            BEFORE.put(action, CrashHarness.state(seeded, action.target, services));
            Path reference = scratch.resolve("reference-" + action);
            CrashHarness.copy(template, reference);
            Omnigraph ref = Omnigraph.open(services, reference, OpenMode.READ_WRITE).block();
            action.run(ref).block();
            AFTER.put(action, CrashHarness.state(ref, action.target, services));
            assertThat(AFTER.get(action)).isNotEqualTo(BEFORE.get(action));
        }
    }

    static void load(Omnigraph graph, String branch, String ndjson) {
        graph.load(branch, LoadMode.MERGE, Flux.just(ByteBuffer.wrap(ndjson.getBytes(StandardCharsets.UTF_8))),
                LoadOptions.DEFAULT).block();
    }

    @AfterAll
    static void stop() {
        services.tables().close();
    }

    static Stream<Arguments> crashes() {
        RecoveryRecord.Kind back = RecoveryRecord.Kind.RolledBack;
        RecoveryRecord.Kind forward = RecoveryRecord.Kind.RolledForward;
        return Stream.of(
                Arguments.of(Action.INTO_MAIN, "branch_merge.after_prepare", null),
                Arguments.of(Action.INTO_MAIN, "branch_merge.after_gates", null),
                Arguments.of(Action.INTO_MAIN, "branch_merge.after_arm", back),
                Arguments.of(Action.INTO_MAIN, "branch_merge.after_commit:1", back),
                Arguments.of(Action.INTO_MAIN, "branch_merge.after_commit:2", back),
                Arguments.of(Action.INTO_MAIN, FailpointCatalog.SIDECAR_WRITE + "@2", back), // dies writing the confirm
                Arguments.of(Action.INTO_MAIN, "branch_merge.after_confirm", forward),
                Arguments.of(Action.INTO_MAIN, "branch_merge.after_publish", forward),
                Arguments.of(Action.INTO_MAIN, "branch_merge.before_sidecar_delete", forward),
                Arguments.of(Action.INTO_BRANCH, "branch_merge.after_arm", back),
                Arguments.of(Action.INTO_BRANCH, "branch_merge.after_fork", back),
                Arguments.of(Action.INTO_BRANCH, "branch_merge.after_commit:1", back),
                Arguments.of(Action.INTO_BRANCH, "branch_merge.after_confirm", forward),
                Arguments.of(Action.INTO_BRANCH, "branch_merge.before_sidecar_delete", forward));
    }

    @ParameterizedTest(name = "{0} killed at {1}")
    @MethodSource("crashes")
    void aKilledMergeLeavesTheTargetExactlyBeforeOrAfter(Action action, String point, RecoveryRecord.Kind audited,
                                                        @TempDir Path dir) throws Exception {
        Path root = dir.resolve("graph");
        CrashHarness.copy(template, root);
        String spec = point.contains("@") ? point.replace("@", "=exit@") : point + "=exit";
        assertThat(runChild(root, action, spec, dir.resolve("tmp"))).as("child died").isTrue();

        Omnigraph reopened = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
        assertThat(reopened.pendingSidecars().collectList().block()).isEmpty();
        assertThat(CrashHarness.state(reopened, "feature", services)).as("source untouched").isEqualTo(feature);
        List<RecoveryRecord> audit = reopened.recoveries().collectList().block();
        if (audited == RecoveryRecord.Kind.RolledForward) {
            assertThat(CrashHarness.state(reopened, action.target, services)).isEqualTo(AFTER.get(action));
            // A roll-forward publishes the merge's fixed lineage: both parents.
            assertThat(reopened.commits(action.target).next().block().parentIds()).hasSize(2);
        } else {
            assertThat(CrashHarness.state(reopened, action.target, services)).isEqualTo(BEFORE.get(action));
            action.run(reopened).block(); // the merge runs again to the same result
            assertThat(CrashHarness.state(reopened, action.target, services)).isEqualTo(AFTER.get(action));
        }
        if (audited == null) {
            assertThat(audit).isEmpty();
        } else {
            assertThat(audit).singleElement().satisfies(r -> assertThat(r.kind()).isEqualTo(audited));
        }
        assertThat(reopened.gates().allIdle()).isTrue();
    }

    static boolean runChild(Path root, Action action, String failpoints, Path tmp) throws Exception {
        return CrashHarness.diedAt(MergeCrashMain.class, root, action.name(), failpoints, tmp);
    }
}
