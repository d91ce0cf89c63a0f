package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.crash.S3LeaseProcessesTest;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.storage.testing.ChildJvm;
import dev.omnigraph.storage.testing.S3TestServer;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real processes racing for the writer lease of one {@code s3://} root on the loopback S3 server: exactly one
 * holds it, the other is refused naming it; readers need no lease; once the holder closes, the next writer takes
 * the lease at once with the next epoch.
 */
class S3WriterLeaseProcessesTest {
    private static StorageServices services;
    private static S3TestServer server;

    @TempDir
    Path dir;

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

    @Test
    void twoProcessesRaceForTheLeaseOfAnS3RootAndExactlyOneHoldsIt() throws Exception {
        GraphRoot.S3 root = S3LeaseProcessesTest.seeded(services, server, "race");
        List<String> env = S3LeaseProcessesTest.environment(server);
        Process one = ChildJvm.start(SingleWriterTest.ReadWriteHolder.class, dir.resolve("tmp1"), List.of(root.uri()), env);
        Process two = ChildJvm.start(SingleWriterTest.ReadWriteHolder.class, dir.resolve("tmp2"), List.of(root.uri()), env);
        try {
            String first = WriterLeaseProcessesTest.verdict(one);
            String second = WriterLeaseProcessesTest.verdict(two);
            assertThat(List.of(first, second)).filteredOn(line -> line.startsWith("OPEN ")).hasSize(1);
            Process holder = first.startsWith("OPEN ") ? one : two;
            String refusal = first.startsWith("OPEN ") ? second : first;
            assertThat(refusal).startsWith("REFUSED ").contains("process " + holder.pid()).contains("writer epoch 2")
                    .contains("read-only");
            // Readers need no lease.
            Omnigraph reader = Omnigraph.open(services, root, OpenMode.READ_ONLY).block();
            assertThat(reader.snapshot(ReadTarget.main()).block().manifest().writerEpoch()).isEqualTo(2);
            reader.close();

            holder.getOutputStream().close(); // the holder closes its graph: the lease is released
            assertThat(holder.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(holder.exitValue()).isZero();
            Omnigraph next = Omnigraph.open(services, root, OpenMode.READ_WRITE, S3LeaseProcessesTest.lease(Clock.systemUTC())).block();
            try {
                assertThat(next.snapshot(ReadTarget.main()).block().manifest().writerEpoch()).isEqualTo(3);
            } finally {
                next.closeAsync().block();
            }
        } finally {
            one.destroyForcibly();
            two.destroyForcibly();
        }
    }
}
