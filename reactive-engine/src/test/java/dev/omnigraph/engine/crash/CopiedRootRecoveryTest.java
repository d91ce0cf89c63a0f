package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.internal.HandleInternals;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.recovery.SidecarStore;
import dev.omnigraph.storage.LanceBranch;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.testing.StorageFixture;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * Issue 30, "roots that can be copied": a write killed in a child JVM leaves a sidecar, the root is copied file by
 * file ({@code cp -r}), and the copy is opened read-write. Its recovery acts on the copy's own tables (rolled back,
 * rolled forward, a first-touch fork reclaimed); the original's files are byte for byte untouched, and the original
 * then recovers itself. Sidecars record table paths relative to the root; one recorded by an older build (an
 * absolute path) is read by its place in the layout, and a path that leaves the root is refused with the sidecar kept.
 *
 * <p>A copied root with Lance branches still reads the fragments its branches inherited through absolute paths to
 * the original (Lance records a branch's parent dataset that way; see {@code compat.LanceBasePaths}): here the
 * original exists, and the digests show that nothing was written to it.
 */
class CopiedRootRecoveryTest {
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

    @Test
    void aCopyRollsBackItsOwnTablesAndTheOriginalIsUntouched(@TempDir Path dir) throws Exception {
        CrashHarness.Expectation expected = CrashHarness.expectation(CrashScenario.INSERT, services, scratch);
        Path original = killed(expected, CrashScenario.INSERT, "mutation.after_commit:1", dir);
        Sidecar pending = onlySidecar(original);
        assertThat(pending.tables()).isNotEmpty().allSatisfy(pin -> assertThat(pin.tablePath())
                .as("recorded relative to the root").matches("(nodes|edges)/[0-9a-f]{16}-[0-9a-f]{16}"));
        assertThat(Files.readString(original.resolve(SidecarStore.key(pending.operationId()))))
                .doesNotContain(original.toString(), dir.toString());

        Path copy = dir.resolve("copy");
        CrashHarness.copy(original, copy);
        Map<String, String> untouched = CrashHarness.digests(original);
        try (Omnigraph graph = Omnigraph.open(services, copy, OpenMode.READ_WRITE).block()) {
            assertRecovered(graph, expected.before(), RecoveryRecord.Kind.RolledBack, pending);
        }
        assertThat(CrashHarness.digests(original)).as("the original, after its copy recovered").isEqualTo(untouched);
        try (Omnigraph graph = Omnigraph.open(services, original, OpenMode.READ_WRITE).block()) {
            assertRecovered(graph, expected.before(), RecoveryRecord.Kind.RolledBack, pending);
        }
    }

    @Test
    void aCopyRollsForwardOnItsOwnTablesAndTheOriginalIsUntouched(@TempDir Path dir) throws Exception {
        CrashHarness.Expectation expected = CrashHarness.expectation(CrashScenario.APPEND, services, scratch);
        Path original = killed(expected, CrashScenario.APPEND, "load.after_confirm", dir);
        Sidecar pending = onlySidecar(original);

        Path copy = dir.resolve("copy");
        CrashHarness.copy(original, copy);
        Map<String, String> untouched = CrashHarness.digests(original);
        try (Omnigraph graph = Omnigraph.open(services, copy, OpenMode.READ_WRITE).block()) {
            assertRecovered(graph, expected.after(), RecoveryRecord.Kind.RolledForward, pending);
        }
        assertThat(CrashHarness.digests(original)).isEqualTo(untouched);
        try (Omnigraph graph = Omnigraph.open(services, original, OpenMode.READ_WRITE).block()) {
            assertRecovered(graph, expected.after(), RecoveryRecord.Kind.RolledForward, pending);
        }
    }

    /** The write forked Person and Knows on the branch and died: the copy deletes its own forks, not the original's. */
    @Test
    void aCopyReclaimsTheForksItsWriteMadeAndTheOriginalKeepsItsOwn(@TempDir Path dir) throws Exception {
        Path original = dir.resolve("original");
        try (Omnigraph seeded = Omnigraph.init(services, original, CrashScenario.SCHEMA).block()) {
            seeded.load("main", LoadMode.APPEND, Flux.just(ByteBuffer.wrap(CrashScenario.SEED.getBytes(StandardCharsets.UTF_8))),
                    LoadOptions.DEFAULT).block();
            seeded.createBranch(BranchCrashTest.BRANCH, Optional.empty()).block();
        }
        CrashHarness.GraphState before;
        try (Omnigraph graph = Omnigraph.open(services, original, OpenMode.READ_ONLY).block()) {
            before = CrashHarness.state(graph, BranchCrashTest.BRANCH, services);
        }
        assertThat(CrashHarness.diedAt(BranchCrashMain.class, original, BranchCrashTest.Action.WRITE.name(),
                "mutation.after_fork=exit", dir.resolve("tmp"))).isTrue();
        Sidecar pending = onlySidecar(original);
        assertThat(forks(original, "node:Person")).containsExactly(BranchCrashTest.BRANCH);

        Path copy = dir.resolve("copy");
        CrashHarness.copy(original, copy);
        Map<String, String> untouched = CrashHarness.digests(original);
        try (Omnigraph graph = Omnigraph.open(services, copy, OpenMode.READ_WRITE).block()) {
            assertThat(HandleInternals.of(graph).pendingSidecars().collectList().block()).isEmpty();
            assertThat(CrashHarness.state(graph, BranchCrashTest.BRANCH, services)).isEqualTo(before);
            assertThat(graph.recoveries().collectList().block()).singleElement().satisfies(row -> {
                assertThat(row.operationId()).isEqualTo(pending.operationId());
                assertThat(row.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack);
            });
        }
        assertThat(forks(copy, "node:Person")).as("the copy's fork, reclaimed").isEmpty();
        assertThat(forks(copy, "edge:Knows")).isEmpty();
        assertThat(forks(original, "node:Person")).as("the original's fork, kept").containsExactly(BranchCrashTest.BRANCH);
        assertThat(CrashHarness.digests(original)).isEqualTo(untouched);
        try (Omnigraph graph = Omnigraph.open(services, original, OpenMode.READ_WRITE).block()) {
            assertThat(CrashHarness.state(graph, BranchCrashTest.BRANCH, services)).isEqualTo(before);
            assertThat(HandleInternals.of(graph).pendingSidecars().collectList().block()).isEmpty();
        }
        assertThat(forks(original, "node:Person")).isEmpty();
    }

    @Test
    void anOlderAbsolutePathIsReadByItsPlaceInTheLayoutAndAPathOutOfTheRootIsRefused(@TempDir Path dir) throws Exception {
        CrashHarness.Expectation expected = CrashHarness.expectation(CrashScenario.INSERT, services, scratch);
        Path original = killed(expected, CrashScenario.INSERT, "mutation.after_commit:1", dir);
        Sidecar pending = onlySidecar(original);
        Map<String, String> untouched = CrashHarness.digests(original);

        // As the build before relative paths wrote it: absolute, under the directory the graph was made in.
        Path legacy = dir.resolve("legacy");
        CrashHarness.copy(original, legacy);
        rewriteTablePaths(legacy, pending, "/srv/made-elsewhere/graph/");
        try (Omnigraph graph = Omnigraph.open(services, legacy, OpenMode.READ_WRITE).block()) {
            assertRecovered(graph, expected.before(), RecoveryRecord.Kind.RolledBack, pending);
        }

        Path escaping = dir.resolve("escaping");
        CrashHarness.copy(original, escaping);
        rewriteTablePaths(escaping, pending, "../original/");
        assertThatThrownBy(() -> Omnigraph.open(services, escaping, OpenMode.READ_WRITE).block())
                .isInstanceOfSatisfying(RecoveryRequired.class, e -> assertThat(e.operationId()).isEqualTo(pending.operationId()))
                .hasMessageContaining("../original/").hasMessageContaining("is not a table of this graph's root")
                .hasMessageContaining("the sidecar is kept");
        assertThat(Files.exists(escaping.resolve(SidecarStore.key(pending.operationId())))).isTrue();
        try (Omnigraph graph = Omnigraph.open(services, escaping, OpenMode.READ_ONLY).block()) {
            assertThat(CrashHarness.state(graph, "main", services)).isEqualTo(expected.before());
            assertThat(graph.recoveries().collectList().block()).isEmpty();
        }
        assertThat(CrashHarness.digests(original)).isEqualTo(untouched);
    }

    /** A copy of {@code scenario}'s template whose write a child JVM died in at {@code point}. */
    static Path killed(CrashHarness.Expectation expected, CrashScenario scenario, String point, Path dir) throws Exception {
        Path original = dir.resolve("original");
        CrashHarness.copy(expected.template(), original);
        CrashHarness.ChildRun run = CrashHarness.runChild(original, scenario.name(), point + "=exit", dir.resolve("tmp"));
        assertThat(run.died()).as(run.output()).isTrue();
        return original;
    }

    static Sidecar onlySidecar(Path root) {
        List<Sidecar> pending = new SidecarStore(services.objectStore(root)).list().collectList().block();
        assertThat(pending).hasSize(1);
        return pending.get(0);
    }

    static void assertRecovered(Omnigraph graph, CrashHarness.GraphState state, RecoveryRecord.Kind kind, Sidecar pending) {
        assertThat(HandleInternals.of(graph).pendingSidecars().collectList().block()).isEmpty();
        assertThat(CrashHarness.state(graph, "main", services)).isEqualTo(state);
        assertThat(graph.recoveries().collectList().block()).singleElement().satisfies(row -> {
            assertThat(row.operationId()).isEqualTo(pending.operationId());
            assertThat(row.kind()).isEqualTo(kind);
        });
    }

    /** Rewrites, in {@code root}'s copy of the sidecar, every recorded table path to {@code prefix} + that path. */
    static void rewriteTablePaths(Path root, Sidecar pending, String prefix) throws IOException {
        Path file = root.resolve(SidecarStore.key(pending.operationId()));
        String json = Files.readString(file);
        for (Sidecar.TablePin pin : pending.tables()) {
            json = json.replace("\"table_path\":\"" + pin.tablePath() + "\"", "\"table_path\":\"" + prefix + pin.tablePath() + "\"");
        }
        Files.writeString(file, json);
    }

    static List<String> forks(Path root, String tableKey) {
        try (Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_ONLY).block()) {
            var table = graph.snapshot(ReadTarget.main()).block().table(tableKey).orElseThrow();
            return services.tables().listBranches(graph.root().resolve(table.path()).toString()).block().stream()
                    .map(LanceBranch::name).toList();
        }
    }

}
