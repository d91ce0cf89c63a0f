package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.internal.HandleInternals;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

/**
 * Kills a real child JVM ({@code Runtime.halt}) at every failpoint of every writer, then reopens the graph
 * read-write in this JVM and checks it holds exactly the state before or after the write — every table's rows
 * and the commit list — with no sidecar left and the audit log saying what recovery did.
 */
@Execution(ExecutionMode.CONCURRENT)
class CrashMatrixTest {
    static StorageServices services;

    @TempDir
    static Path scratch;

    @BeforeAll
    static void start() {
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
    }

    @AfterAll
    static void stop() {
        services.tables().close();
    }

    static Stream<Arguments> pipelineCrashes() {
        List<Arguments> cases = new ArrayList<>();
        for (CrashScenario scenario : CrashScenario.values()) {
            for (String step : FailpointCatalog.PIPELINE_STEPS) {
                if (step.endsWith("<n>")) {
                    for (int n = 1; n <= scenario.tables + 1; n++) { // one past the last: never reached
                        cases.add(Arguments.of(scenario, step.replace("<n>", Integer.toString(n))));
                    }
                } else {
                    cases.add(Arguments.of(scenario, step));
                }
            }
            if (scenario == CrashScenario.FIRST_ROWS) { // its rows landed, the index build that follows not yet
                cases.add(Arguments.of(scenario, FailpointCatalog.AFTER_CHUNK + "1.1"));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} killed at {1}")
    @MethodSource("pipelineCrashes")
    void aKilledWriteLeavesTheOldGraphOrTheNew(CrashScenario scenario, String step, @TempDir Path dir) throws Exception {
        CrashHarness.Expectation expected = CrashHarness.expectation(scenario, services, scratch);
        Path root = dir.resolve("graph");
        CrashHarness.copy(expected.template(), root);
        String point = FailpointCatalog.point(scenario.writer, step);

        CrashHarness.ChildRun run = CrashHarness.runChild(root, scenario.name(), point + "=exit", dir.resolve("tmp"));
        assertThat(run.exitCode()).as(run.output()).isIn(0, 137);

        Omnigraph reopened = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
        CrashHarness.GraphState state = CrashHarness.state(reopened);
        List<RecoveryRecord> audit = reopened.recoveries().collectList().block();
        assertThat(HandleInternals.of(reopened).pendingSidecars().collectList().block()).as("sidecars after recovery").isEmpty();

        boolean armed = !step.equals(FailpointCatalog.AFTER_PREPARE) && !step.equals(FailpointCatalog.AFTER_GATES);
        boolean confirmed = step.equals(FailpointCatalog.AFTER_CONFIRM) || step.equals(FailpointCatalog.AFTER_PUBLISH)
                || step.equals(FailpointCatalog.BEFORE_SIDECAR_DELETE);
        if (!run.died()) {
            // The failpoint was never reached (e.g. a third commit of a two-table write): the write completed.
            assertThat(state).isEqualTo(expected.after());
            assertThat(audit).isEmpty();
        } else if (step.equals(FailpointCatalog.AFTER_PREPARE)) {
            // Staged; an insert, upsert or overwrite may be armed already (the arm runs beside staging): then
            // recovery finds no table moved and records the rollback of the intent.
            assertThat(state).isEqualTo(expected.before());
            assertThat(audit).hasSizeLessThanOrEqualTo(1)
                    .allSatisfy(r -> assertThat(r.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack));
        } else if (!armed) {
            assertThat(state).isEqualTo(expected.before());
            assertThat(audit).isEmpty();
        } else if (confirmed) {
            assertThat(state).isEqualTo(expected.after());
            assertThat(audit).singleElement().satisfies(r -> assertThat(r.kind()).isEqualTo(RecoveryRecord.Kind.RolledForward));
        } else {
            assertThat(state).isEqualTo(expected.before());
            assertThat(audit).singleElement().satisfies(r -> assertThat(r.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack));
        }
        // Either way the branch is writable again.
        assertThat(HandleInternals.of(reopened).gates().allIdle()).isTrue();
    }

    static Stream<Arguments> recoveryCrashes() {
        RecoveryRecord.Kind back = RecoveryRecord.Kind.RolledBack;
        return Stream.of(
                // Compensation of an in-process failure (first commit landed, then an error) dies half-way.
                Arguments.of("mutation.after_commit:1=error,recovery.before_plan_write=exit", false, back),
                Arguments.of("mutation.after_commit:1=error,recovery.after_plan_write=exit", false, back),
                Arguments.of("mutation.after_commit:2=error,recovery.after_restore:1=exit", false, back),
                Arguments.of("mutation.after_commit:2=error,recovery.after_restore:2=exit", false, back),
                Arguments.of("mutation.after_commit:2=error,recovery.after_rollback_publish=exit", false, back),
                Arguments.of("mutation.after_commit:2=error,recovery.after_audit=exit", false, back),
                // The read-write open's sweep dies listing sidecars: nothing was written yet.
                Arguments.of(FailpointCatalog.SIDECAR_LIST + "=exit", false, null),
                // Dies writing the armed sidecar: no intent, no effect.
                Arguments.of(FailpointCatalog.SIDECAR_WRITE + "=exit", false, null),
                // Dies writing the confirm while its publish fails (every table committed, the sidecar still
                // Armed, nothing published): rolled back.
                Arguments.of("mutation.before_manifest_commit=error," + FailpointCatalog.SIDECAR_WRITE + "=exit@2", false, back),
                // Confirmed while its publish fails, dies before compensating: rolled forward by the next open.
                Arguments.of("mutation.before_manifest_commit=error,mutation.after_confirm=exit", true,
                        RecoveryRecord.Kind.RolledForward),
                // Published while its confirmation failed (the sidecar still Armed): the next open finds the
                // commit visible and finalizes it forward.
                Arguments.of(FailpointCatalog.SIDECAR_WRITE + "=error@2,mutation.after_publish=exit", true,
                        RecoveryRecord.Kind.RolledForward),
                // Dies deleting the sidecar of a published write: the next open finalizes it forward.
                Arguments.of(FailpointCatalog.SIDECAR_DELETE + "=exit", true, RecoveryRecord.Kind.RolledForward),
                // Compensation of an in-process failure dies writing its plan, before its audit, before its delete.
                Arguments.of("mutation.after_commit:2=error," + FailpointCatalog.SIDECAR_WRITE + "=exit@2", false, back),
                Arguments.of("mutation.after_commit:1=error," + FailpointCatalog.AUDIT_RECORD + "=exit", false, back),
                Arguments.of("mutation.after_commit:1=error," + FailpointCatalog.SIDECAR_DELETE + "=exit", false, back));
    }

    /** An INSERT whose compensation, or whose recovery's own I/O, is killed: the next open finishes the job. */
    @ParameterizedTest(name = "killed in recovery: {0}")
    @MethodSource("recoveryCrashes")
    void aKilledRecoveryIsFinishedByTheNextOpenWithOneAuditRow(String failpoints, boolean rolledForward,
                                                               RecoveryRecord.Kind audited, @TempDir Path dir) throws Exception {
        CrashHarness.Expectation expected = CrashHarness.expectation(CrashScenario.INSERT, services, scratch);
        Path root = dir.resolve("graph");
        CrashHarness.copy(expected.template(), root);
        CrashHarness.ChildRun run = CrashHarness.runChild(root, CrashScenario.INSERT.name(), failpoints, dir.resolve("tmp"));
        assertThat(run.died()).as(run.output()).isTrue();

        Omnigraph reopened = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
        assertThat(CrashHarness.state(reopened)).isEqualTo(rolledForward ? expected.after() : expected.before());
        assertThat(HandleInternals.of(reopened).pendingSidecars().collectList().block()).isEmpty();
        List<RecoveryRecord> audit = reopened.recoveries().collectList().block();
        if (audited == null) {
            assertThat(audit).isEmpty();
        } else {
            assertThat(audit).singleElement().satisfies(r -> assertThat(r.kind()).isEqualTo(audited));
        }
    }

    static Stream<String> rollForwardRecoveryPoints() {
        return Stream.of(FailpointCatalog.SWEEP_AFTER_FORWARD_PUBLISH, FailpointCatalog.AUDIT_RECORD,
                FailpointCatalog.SWEEP_AFTER_AUDIT, FailpointCatalog.SIDECAR_DELETE);
    }

    /** One invocation per recovery point: each kills two child JVMs, so each gets its own timeout budget. */
    @ParameterizedTest(name = "recovery rolling forward killed at {0}")
    @MethodSource("rollForwardRecoveryPoints")
    void aRecoveryKilledWhileRollingForwardIsFinishedByTheNextOpen(String recoveryPoint, @TempDir Path dir) throws Exception {
        CrashHarness.Expectation expected = CrashHarness.expectation(CrashScenario.APPEND, services, scratch);
        Path root = dir.resolve(recoveryPoint.replace(':', '_'));
        CrashHarness.copy(expected.template(), root);
        assertThat(CrashHarness.runChild(root, "APPEND", 
                "load.before_manifest_commit=error,load.after_confirm=exit", dir.resolve("tmp1")).died()).isTrue();
        // A second process opens read-write; its sweep rolls the write forward and dies mid-recovery.
        assertThat(CrashHarness.runChild(root, "OPEN", recoveryPoint + "=exit", dir.resolve("tmp2")).died()).isTrue();
        Omnigraph reopened = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
        assertThat(CrashHarness.state(reopened)).as(recoveryPoint).isEqualTo(expected.after());
        assertThat(HandleInternals.of(reopened).pendingSidecars().collectList().block()).isEmpty();
        assertThat(reopened.recoveries().collectList().block()).as(recoveryPoint).singleElement()
                .satisfies(r -> assertThat(r.kind()).isEqualTo(RecoveryRecord.Kind.RolledForward));
    }

    @Test
    void theCatalogueListsEveryWritersPoints() {
        assertThat(FailpointCatalog.byWriter()).containsKeys("mutation", "load", "recovery", "init");
        assertThat(FailpointCatalog.byWriter().get("recovery")).contains(FailpointCatalog.SIDECAR_WRITE,
                FailpointCatalog.SIDECAR_DELETE, FailpointCatalog.SIDECAR_LIST, FailpointCatalog.AUDIT_RECORD);
        assertThat(FailpointCatalog.byWriter().get("mutation")).contains("mutation.after_arm", "mutation.after_commit:<n>");
    }
}
