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
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StaleCopiesTest {
    private static final Duration HOUR = Duration.ofHours(1);
    private static final LibraryName LANCE = new LibraryName("liblance_jni.so");
    private static final LibraryName ARROW = new LibraryName("jnilib-.tmp");

    @TempDir
    Path tmp;

    private final Instant now = Instant.now();

    @Test
    void anOldUnmappedCopyGoesAndOneALiveProcessMapsStays() throws IOException {
        assumeTrue(Files.isReadable(Path.of("/proc/self/maps")), "needs /proc");
        Path stale = Fixtures.file(tmp.resolve("liblance_jni123.so"), 4096, now, HOUR);
        Path arrow = Fixtures.file(tmp.resolve("jnilib-42.tmp"), 4096, now, HOUR);
        Path loaded = Fixtures.file(tmp.resolve("liblance_jni456.so"), 4096, now, HOUR);
        Path young = Fixtures.file(tmp.resolve("liblance_jni789.so"), 4096, now, Duration.ofMinutes(1));
        Path unrelated = Fixtures.file(tmp.resolve("liblance_jni-8ad82def-4096.so"), 4096, now, HOUR);
        Path link = Files.createSymbolicLink(tmp.resolve("liblance_jni999.so"), unrelated);

        // This JVM is the live process that maps one of them, as a JVM that loaded it would.
        try (FileChannel channel = FileChannel.open(loaded)) {
            MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, 4096);
            List<StaleCopies> places = List.of(new StaleCopies(tmp, LANCE::isTempCopy, Duration.ofMinutes(10)),
                    new StaleCopies(tmp, ARROW::isTempCopy, Duration.ofMinutes(10)));
            LeftoverSweep sweep = new LeftoverSweep(places, Optional.empty(), Path.of("/proc"));

            List<StaleCopies.Candidate> removed = sweep.run(now);

            assertThat(removed).extracting(StaleCopies.Candidate::path).containsExactlyInAnyOrder(stale, arrow);
            assertThat(stale).doesNotExist();
            assertThat(arrow).doesNotExist();
            assertThat(loaded).exists();
            assertThat(young).exists();
            assertThat(unrelated).exists();
            assertThat(link).isSymbolicLink();
            Reference.reachabilityFence(mapping);
        }
    }

    @Test
    void theSameCopyGoesOnceNothingMapsIt() throws IOException {
        Path copy = Fixtures.file(tmp.resolve("liblance_jni456.so"), 4096, now, HOUR);
        StaleCopies copies = new StaleCopies(tmp, LANCE::isTempCopy, Duration.ofMinutes(10));
        long inode = (Long) Files.getAttribute(copy, "unix:ino");

        assertThat(copies.reclaim(now, () -> Optional.of(new MappedFiles(Set.of(inode))))).isEmpty();
        assertThat(copy).exists();
        assertThat(copies.reclaim(now, () -> Optional.of(new MappedFiles(Set.of())))).hasSize(1);
        assertThat(copy).doesNotExist();
    }

    @Test
    void withoutProofNothingGoes() throws IOException {
        Path copy = Fixtures.file(tmp.resolve("liblance_jni456.so"), 4096, now, HOUR);

        assertThat(new StaleCopies(tmp, LANCE::isTempCopy, Duration.ofMinutes(10))
                .reclaim(now, Optional::empty)).isEmpty();
        assertThat(copy).exists();
    }

    @Test
    void theMapsAreNotReadWhenNothingIsOldEnough() throws IOException {
        Fixtures.file(tmp.resolve("liblance_jni456.so"), 4096, now, Duration.ofMinutes(9));

        assertThat(new StaleCopies(tmp, LANCE::isTempCopy, Duration.ofMinutes(10)).reclaim(now, () -> {
            throw new AssertionError("maps read");
        })).isEmpty();
    }

    @Test
    void aSweepRunsOncePerIntervalAcrossJvms() throws IOException {
        Path stamp = tmp.resolve("sweep.stamp");
        StaleCopies copies = new StaleCopies(tmp, LANCE::isTempCopy, Duration.ofMinutes(10));
        Path proc = Files.createDirectories(tmp.resolve("proc/1"));
        Files.writeString(proc.resolve("maps"), "00400000-00452000 r-xp 00000000 08:02 1 /bin/x\n");
        LeftoverSweep sweep = new LeftoverSweep(List.of(copies), Optional.of(stamp), proc.getParent());
        // The fake /proc has no map for this pid, so the sweep has no proof and removes nothing; what is tested here
        // is whether it looks at all, which the stamp's time tells.
        sweep.run(now);
        Instant stamped = Files.getLastModifiedTime(stamp).toInstant();
        sweep.run(now.plus(Duration.ofMinutes(5)));
        assertThat(Files.getLastModifiedTime(stamp).toInstant()).isEqualTo(stamped);
        sweep.run(now.plus(Duration.ofMinutes(11)));
        assertThat(Files.getLastModifiedTime(stamp).toInstant()).isAfter(stamped);
    }
}
