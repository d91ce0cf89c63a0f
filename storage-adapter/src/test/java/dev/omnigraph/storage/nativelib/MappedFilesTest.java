package dev.omnigraph.storage.nativelib;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MappedFilesTest {
    @TempDir
    Path tmp;

    @Test
    void readsTheInodeColumnOfEveryProcess() throws IOException {
        Path proc = tmp.resolve("proc");
        write(proc.resolve("100/maps"), """
                55d0c1a00000-55d0c1a02000 r--p 00000000 fd:01 2621553                    /usr/bin/cat
                7f1e2c000000-7f1e2c021000 rw-p 00000000 00:00 0
                7f1e2d200000-7f1e2f000000 r-xp 00000000 fd:01 1234567                    /tmp/liblance_jni1.so (deleted)
                7ffd1a5e2000-7ffd1a603000 rw-p 00000000 00:00 0                          [stack]
                """);
        write(proc.resolve("200/maps"), "7f0000000000-7f0000001000 r--s 00000000 00:1f 42 /dev/shm/with space\n");
        Files.createDirectories(proc.resolve("300")); // exited between the listing and the read
        Files.createDirectories(proc.resolve("self"));

        MappedFiles mapped = MappedFiles.scan(proc, 100, Duration.ofSeconds(2)).orElseThrow();

        assertThat(mapped.inodes()).containsExactlyInAnyOrder(2621553L, 1234567L, 42L);
    }

    @Test
    void noProofWithoutThisProcesssOwnMap() throws IOException {
        Path proc = tmp.resolve("proc");
        write(proc.resolve("100/maps"), "55d0c1a00000-55d0c1a02000 r--p 00000000 fd:01 7 /usr/bin/cat\n");

        assertThat(MappedFiles.scan(proc, 999, Duration.ofSeconds(2))).isEmpty();
        assertThat(MappedFiles.scan(tmp.resolve("no-proc"), 100, Duration.ofSeconds(2))).isEmpty();
    }

    @Test
    void seesAFileThisJvmMaps() throws IOException {
        assumeTrue(Files.isReadable(Path.of("/proc/self/maps")), "needs /proc");
        Path file = Files.write(tmp.resolve("mapped.bin"), new byte[4096]);
        try (FileChannel channel = FileChannel.open(file)) {
            MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, 4096);

            Optional<MappedFiles> mapped = MappedFiles.scan(Path.of("/proc"), ProcessHandle.current().pid(),
                    Duration.ofSeconds(5));

            long inode = inode(file);
            assertThat(mapped).hasValueSatisfying(m -> assertThat(m.maps(inode)).isTrue());
            Reference.reachabilityFence(mapping);
        }
    }

    private static long inode(Path file) throws IOException {
        return (Long) Files.getAttribute(file, "unix:ino");
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
