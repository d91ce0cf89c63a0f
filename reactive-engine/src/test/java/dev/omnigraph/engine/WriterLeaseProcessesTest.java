package dev.omnigraph.engine;

import static dev.omnigraph.engine.EngineFixture.SOCIAL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.lease.LeaseSettings;
import dev.omnigraph.storage.testing.ChildJvm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Real processes racing for the lease object of one root: exactly one holds it; the other is told who does. */
class WriterLeaseProcessesTest extends GraphRootTestBase {
    /** Child JVMs take the lease object (not the OS lock) with leases long enough never to expire in a test. */
    static final List<String> LEASE_ENV = List.of(LeaseSettings.ENV_MODE + "=object", LeaseSettings.ENV_DURATION + "=PT1H");

    @Test
    void twoProcessesRaceExactlyOneHoldsAndAWaiterGetsTheLeaseWhenItCloses() throws Exception {
        Omnigraph.init(services, root, SOCIAL).block().closeAsync().block();
        Process one = ChildJvm.start(SingleWriterTest.ReadWriteHolder.class, dir.resolve("tmp1"), List.of(root.toString()), LEASE_ENV);
        Process two = ChildJvm.start(SingleWriterTest.ReadWriteHolder.class, dir.resolve("tmp2"), List.of(root.toString()), LEASE_ENV);
        try {
            String first = verdict(one);
            String second = verdict(two);
            assertThat(List.of(first, second)).filteredOn(line -> line.startsWith("OPEN ")).hasSize(1);
            Process holder = first.startsWith("OPEN ") ? one : two;
            String refusal = first.startsWith("OPEN ") ? second : first;
            assertThat(refusal).startsWith("REFUSED ").contains("process " + holder.pid()).contains("writer epoch 1")
                    .contains("read-only");

            try (Omnigraph reader = Omnigraph.open(services, root, OpenMode.READ_ONLY).block()) {
                assertThat(reader.snapshot(ReadTarget.main()).block().tables()).hasSize(4);
            }

            // A third process (this JVM) waits for the lease instead of failing, and gets it once the holder closes.
            CompletableFuture<Omnigraph> waiting = Omnigraph.open(services, root, OpenMode.READ_WRITE,
                    LeaseSettings.of(Duration.ofHours(1)).withObjectLease().waiting(Duration.ofMinutes(5))
                            .polling(Duration.ofMillis(50))).toFuture();
            holder.getOutputStream().close();
            assertThat(holder.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(holder.exitValue()).isZero();
            Omnigraph writer = waiting.get(120, TimeUnit.SECONDS);
            try {
                assertThat(writer.snapshot(ReadTarget.main()).block().manifest().writerEpoch()).isEqualTo(2);
            } finally {
                writer.closeAsync().block(); // the lease is given back before @TempDir is deleted
            }
        } finally {
            one.destroyForcibly();
            two.destroyForcibly();
        }
    }

    /** The child's OPEN or REFUSED line (log lines before it are skipped). */
    static String verdict(Process child) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("OPEN ") || line.startsWith("REFUSED ")) {
                return line;
            }
            seen.append(line).append('\n');
        }
        throw new AssertionError("the child ended without a verdict:\n" + seen);
    }
}
