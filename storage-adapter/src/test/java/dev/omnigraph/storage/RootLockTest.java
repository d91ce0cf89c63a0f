package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.testing.ChildJvm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RootLockTest {
    @TempDir
    Path dir;

    /** Child JVM: takes the lock, says so, and holds it until its stdin closes. */
    public static final class Holder {
        public static void main(String[] args) throws Exception {
            try (RootLock lock = RootLock.acquire(Path.of(args[0]))) {
                System.out.println("LOCKED " + ProcessHandle.current().pid());
                System.out.flush();
                while (System.in.read() != -1) {
                    // wait for the parent to close our stdin
                }
            }
        }
    }

    @Test
    void handlesInOneProcessShareTheLock() {
        RootLock first = RootLock.acquire(dir);
        RootLock second = RootLock.acquire(dir);
        second.close();
        second.close(); // idempotent
        first.close();
        RootLock again = RootLock.acquire(dir);
        again.close();
        assertThat(dir.resolve(RootLock.FILE)).exists();
    }

    @Test
    void aSecondProcessIsRefusedWithTheHolderNamedUntilTheHolderEnds() throws Exception {
        Path root = dir.resolve("root").toAbsolutePath();
        java.nio.file.Files.createDirectories(root);
        Process child = ChildJvm.start(Holder.class, dir.resolve("tmp"), List.of(root.toString()), List.of());
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line;
            do {
                line = out.readLine();
            } while (line != null && !line.startsWith("LOCKED "));
            assertThat(line).as("child took the lock").isNotNull();
            long pid = Long.parseLong(line.substring("LOCKED ".length()).trim());

            assertThatThrownBy(() -> RootLock.acquire(root))
                    .isInstanceOf(Conflict.class)
                    .hasMessageContaining("process " + pid)
                    .hasMessageContaining("read-only");
            assertThat(RootLock.describe(root).pid()).isEqualTo(pid);

            child.getOutputStream().close();
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
            try (RootLock mine = RootLock.acquire(root)) {
                assertThat(RootLock.describe(root).pid()).isEqualTo(ProcessHandle.current().pid());
            }
        } finally {
            child.destroyForcibly();
        }
    }
}
