package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.internal.HandleInternals;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.RootLock;
import dev.omnigraph.storage.lease.LeaseSettings;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.storage.testing.TestClock;
import dev.omnigraph.storage.testing.S3TestServer;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;

/**
 * A reduced crash matrix on an S3 root: a child JVM writing to {@code s3://} on the loopback S3 server is halted
 * at a failpoint of a mutation or a load; this JVM then opens the root read-write and must find exactly the graph
 * before or after the write, no sidecar left, and the audit saying what recovery did. Expectations and seeded
 * templates come from the local matrix ({@link CrashHarness}): the states compared are logical, not paths.
 */
class S3CrashMatrixTest {
    static StorageServices services;
    static S3TestServer server;

    @TempDir
    static Path scratch;

    @BeforeAll
    static void start() throws Exception {
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
        server = S3TestServer.start();
    }

    @AfterAll
    static void stop() throws Exception {
        services.tables().close();
        server.close();
    }

    /** Two cases (a child JVM each, minutes on a loaded 2-core machine): a mutation rolled back, a load forward. */
    static Stream<Arguments> crashes() {
        return Stream.of(
                Arguments.of(CrashScenario.INSERT, FailpointCatalog.AFTER_COMMIT + "1", RecoveryRecord.Kind.RolledBack),
                Arguments.of(CrashScenario.APPEND, FailpointCatalog.BEFORE_SIDECAR_DELETE, RecoveryRecord.Kind.RolledForward));
    }

    @ParameterizedTest(name = "{0} on s3 killed at {1}")
    @MethodSource("crashes")
    void aKilledWriteOnS3LeavesTheOldGraphOrTheNew(CrashScenario scenario, String step, RecoveryRecord.Kind audited,
                                                   @TempDir Path dir) throws Exception {
        CrashHarness.Expectation expected = CrashHarness.expectation(scenario, services, scratch);
        GraphRoot.S3 root = server.root("crash", scenario + "-" + step.replace(':', '_'));
        upload(expected.template(), services.objectStore(root));

        CrashHarness.ChildRun run = CrashHarness.runChild(root.uri(), scenario.name(),
                FailpointCatalog.point(scenario.writer, step) + "=exit", dir.resolve("tmp"), environment());
        assertThat(run.died()).as(run.output()).isTrue();

        // The dead child's lease outlives it: this process takes it over once it expired (by a clock moved past it).
        TestClock later = TestClock.startingNow();
        later.advance(S3LeaseProcessesTest.LEASE.plusMinutes(1));
        Omnigraph reopened = Omnigraph.open(services, root, OpenMode.READ_WRITE,
                LeaseSettings.of(S3LeaseProcessesTest.LEASE).withClock(later)).block();
        try {
            boolean forward = audited == RecoveryRecord.Kind.RolledForward;
            assertThat(CrashHarness.state(reopened, services)).isEqualTo(forward ? expected.after() : expected.before());
            assertThat(HandleInternals.of(reopened).pendingSidecars().collectList().block()).as("sidecars after recovery").isEmpty();
            assertThat(reopened.recoveries().collectList().block()).singleElement()
                    .satisfies(record -> assertThat(record.kind()).isEqualTo(audited));
        } finally {
            reopened.closeAsync().block();
        }
    }

    private static List<String> environment() {
        return S3LeaseProcessesTest.environment(server);
    }

    /** Copies a local graph's files to the S3 root, key for key (Lance datasets hold relative paths only). */
    static void upload(Path template, ObjectStore target) throws Exception {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(template)) {
            files = walk.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().equals(RootLock.FILE)).toList();
        }
        Flux.fromIterable(files)
                .flatMap(file -> target.put(template.relativize(file).toString().replace('\\', '/'), read(file)), 8)
                .blockLast();
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
