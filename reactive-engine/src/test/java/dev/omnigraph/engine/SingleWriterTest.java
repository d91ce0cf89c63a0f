package dev.omnigraph.engine;

import static dev.omnigraph.engine.EngineFixture.SOCIAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.RootLock;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.testing.ChildJvm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The single-writer guard: one process at a time holds a root read-write; read-only opens never wait for it. */
class SingleWriterTest extends GraphRootTestBase {
    /**
     * Child JVM: opens the graph read-write, says so (OPEN pid), and keeps the handle until its stdin closes; or,
     * refused because another process holds the graph, prints REFUSED and the reason and exits 3.
     */
    public static final class ReadWriteHolder {
        public static void main(String[] args) throws Exception {
            Omnigraph graph;
            try {
                // a path, or s3://… with S3 settings from the environment
                graph = Omnigraph.open(StorageServices.shared(), dev.omnigraph.storage.root.GraphRoot.parse(args[0]),
                        OpenMode.READ_WRITE).block();
            } catch (Conflict refused) {
                System.out.println("REFUSED " + refused.getMessage());
                System.out.flush();
                System.exit(3);
                return;
            }
            System.out.println("OPEN " + ProcessHandle.current().pid());
            System.out.flush();
            while (System.in.read() != -1) {
                // hold the handle until the parent closes our stdin
            }
            graph.closeAsync().block(); // a lease is given back before the JVM exits
            System.exit(0);
        }
    }

    @Test
    void readWriteHandlesOfOneProcessShareTheRootAndCloseGivesTheLockBack() {
        Omnigraph created = Omnigraph.init(services, root, SOCIAL).block();
        Omnigraph second = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
        assertThat(RootLock.describe(created.root()).pid()).isEqualTo(ProcessHandle.current().pid());
        second.close();
        created.close();
        created.close(); // a second close is harmless
        Omnigraph again = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
        again.close();
    }

    @Test
    void aSecondProcessIsRefusedWithTheHolderNamedWhileReadOnlyOpensStillWork() throws Exception {
        Omnigraph.init(services, root, SOCIAL).block().close();
        Process child = ChildJvm.start(ReadWriteHolder.class, dir.resolve("tmp"), List.of(root.toString()), List.of());
        try {
            long pid = awaitOpen(child);

            assertThatThrownBy(() -> Omnigraph.open(services, root, OpenMode.READ_WRITE).block())
                    .isInstanceOf(Conflict.class)
                    .hasMessageContaining("process " + pid)
                    .hasMessageContaining("read-only");
            try (Omnigraph reader = Omnigraph.open(services, root, OpenMode.READ_ONLY).block()) {
                assertThat(reader.snapshot(ReadTarget.main()).block().tables()).hasSize(4);
            }

            child.getOutputStream().close();
            assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
            try (Omnigraph writer = Omnigraph.open(services, root, OpenMode.READ_WRITE).block()) {
                assertThat(writer.mode()).isEqualTo(OpenMode.READ_WRITE);
            }
        } finally {
            child.destroyForcibly();
        }
    }

    private static long awaitOpen(Process child) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        String line;
        StringBuilder seen = new StringBuilder();
        while ((line = out.readLine()) != null) {
            if (line.startsWith("OPEN ")) {
                return Long.parseLong(line.substring("OPEN ".length()).trim());
            }
            seen.append(line).append('\n');
        }
        throw new AssertionError("the child ended before opening the graph:\n" + seen);
    }
}
