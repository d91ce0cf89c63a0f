package dev.omnigraph.storage.nativelib;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeCacheTest {
    private static final String ENTRY = "nativelib/linux-x86-64/libdemo.so";
    private static final byte[] CONTENT = Fixtures.random(256 << 10, 7);

    @TempDir
    Path tmp;

    @Test
    void theIdentityComesFromTheJarsDirectory() throws IOException {
        PackagedLibrary lib = Fixtures.library(tmp, ENTRY, CONTENT);

        assertThat(lib.size()).isEqualTo(CONTENT.length);
        assertThat(lib.crc()).isEqualTo(Fixtures.crc(CONTENT));
        assertThat(lib.cacheName()).isEqualTo(String.format("libdemo-%08x-%d.so", lib.crc(), CONTENT.length));
    }

    @Test
    void extractsOnceAndLaterStartsCopyNothing() throws IOException {
        NativeCache cache = new NativeCache(tmp.resolve("cache"));
        PackagedLibrary lib = Fixtures.library(tmp, ENTRY, CONTENT);

        Path first = cache.place(lib).orElseThrow();
        assertThat(first).hasParent(cache.dir()).hasFileName(lib.cacheName()).hasBinaryContent(CONTENT);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(cache.dir()))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(first))).isEqualTo("r-x------");

        // A later start: the jar's bytes are never opened, the file is the same inode, nothing else was written.
        PackagedLibrary unopenable = new PackagedLibrary(lib.name(), lib.size(), lib.crc(), () -> {
            throw new AssertionError("copied again");
        });
        Object inode = Files.getAttribute(first, "unix:ino");
        assertThat(cache.place(unopenable)).contains(first);
        assertThat(Files.getAttribute(first, "unix:ino")).isEqualTo(inode);
        assertThat(list(cache.dir())).containsExactly(first);
    }

    @Test
    void aCopyOfTheWrongSizeIsReplaced() throws IOException {
        NativeCache cache = new NativeCache(tmp.resolve("cache"));
        PackagedLibrary lib = Fixtures.library(tmp, ENTRY, CONTENT);
        Files.createDirectories(cache.dir());
        Files.write(cache.dir().resolve(lib.cacheName()), new byte[] {1, 2, 3}); // e.g. a disk that filled up

        assertThat(cache.place(lib).orElseThrow()).hasBinaryContent(CONTENT);
        assertThat(list(cache.dir())).hasSize(1);
    }

    @Test
    void aLinkUnderTheCopysNameIsReplacedNotFollowed() throws IOException {
        NativeCache cache = new NativeCache(tmp.resolve("cache"));
        PackagedLibrary lib = Fixtures.library(tmp, ENTRY, CONTENT);
        Path elsewhere = Files.write(tmp.resolve("elsewhere.so"), new byte[CONTENT.length]); // the right size
        Files.createDirectories(cache.dir());
        Files.createSymbolicLink(cache.dir().resolve(lib.cacheName()), elsewhere);

        Path copy = cache.place(lib).orElseThrow();
        assertThat(Files.isSymbolicLink(copy)).isFalse();
        assertThat(copy).hasBinaryContent(CONTENT);
        assertThat(elsewhere).hasBinaryContent(new byte[CONTENT.length]);
    }

    @Test
    void twoExtractingAtOnceBothGetTheCompleteCopy() throws Exception {
        Path dir = tmp.resolve("cache");
        PackagedLibrary lib = Fixtures.library(tmp, ENTRY, CONTENT);
        // Each reader stops halfway until the other is halfway too: both copies are certainly in flight at once.
        CyclicBarrier halfway = new CyclicBarrier(2);
        AtomicInteger opened = new AtomicInteger();
        PackagedLibrary racing = new PackagedLibrary(lib.name(), lib.size(), lib.crc(), () -> {
            opened.incrementAndGet();
            return new StallingStream(lib.source().open(), CONTENT.length / 2, halfway);
        });
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Callable<Optional<Path>> start = () -> new NativeCache(dir).place(racing); // as one JVM's first start
            List<Future<Optional<Path>>> results = pool.invokeAll(List.of(start, start), 10, TimeUnit.SECONDS);

            Path copy = dir.resolve(lib.cacheName());
            for (Future<Optional<Path>> result : results) {
                assertThat(result.get()).contains(copy);
            }
            assertThat(opened).hasValue(2);
            assertThat(copy).hasBinaryContent(CONTENT);
            assertThat(list(dir)).containsExactly(copy); // the loser's temp file is gone
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void bytesThatDoNotMatchTheJarsDirectoryAreRefused() throws IOException {
        NativeCache cache = new NativeCache(tmp.resolve("cache"));
        PackagedLibrary lib = Fixtures.library(tmp, ENTRY, CONTENT);
        PackagedLibrary damaged = new PackagedLibrary(lib.name(), lib.size(), lib.crc() ^ 1, lib.source());

        assertThatThrownBy(() -> cache.place(damaged)).isInstanceOf(CorruptLibraryException.class);
        assertThat(list(cache.dir())).isEmpty();
    }

    @Test
    void aFolderThatCannotBeCreatedMeansNoCache() throws IOException {
        Path file = Files.write(tmp.resolve("a-file"), new byte[0]);
        NativeCache cache = new NativeCache(file.resolve("native")); // even root cannot make a folder under a file

        assertThat(cache.place(Fixtures.library(tmp, ENTRY, CONTENT))).isEmpty();
    }

    @Test
    void aFolderThatCannotBeMadeMeansNoCache() throws IOException {
        // A regular file where the cache folder should be: no user, root included, can create the folder.
        Path blocked = Files.writeString(tmp.resolve("blocked"), "not a folder");
        PackagedLibrary lib = Fixtures.library(tmp, ENTRY, CONTENT);
        assertThat(new NativeCache(blocked.resolve("cache")).place(lib)).isEmpty();
        assertThat(new NativeCache(blocked).place(lib)).isEmpty();
        assertThat(Files.readString(blocked)).isEqualTo("not a folder");
    }

    @Test
    void aFolderOthersCouldWriteIsNarrowedUnlessItIsASharedStickyOne() throws IOException {
        PackagedLibrary lib = Fixtures.library(tmp, ENTRY, CONTENT);
        Path ours = Files.createDirectory(tmp.resolve("ours"));
        Files.setPosixFilePermissions(ours, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path shared = Files.createDirectory(tmp.resolve("shared"));
        Files.setAttribute(shared, "unix:mode", 01777); // like /tmp

        assertThat(new NativeCache(ours).place(lib)).isPresent();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(ours))).isEqualTo("rwxr-xr-x");
        assertThat(new NativeCache(shared).place(lib)).isEmpty();
        assertThat(Files.getAttribute(shared, "unix:mode", LinkOption.NOFOLLOW_LINKS)).isEqualTo(041777);
    }

    @Test
    void theFolderComesFromThePropertyThenTheEnvironmentThenTheUsersCache() {
        assertThat(NativeCache.configuredDir("/p", "/e", "/x", "/home/u")).isEqualTo(Path.of("/p"));
        assertThat(NativeCache.configuredDir(null, "/e", "/x", "/home/u")).isEqualTo(Path.of("/e"));
        assertThat(NativeCache.configuredDir(null, null, "/x", "/home/u")).isEqualTo(Path.of("/x/omnigraph/native"));
        assertThat(NativeCache.configuredDir("", null, "relative", "/home/u"))
                .isEqualTo(Path.of("/home/u/.cache/omnigraph/native"));
    }

    static List<Path> list(Path dir) {
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> files = Files.list(dir)) {
            return files.toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Passes bytes through, stopping once at {@code at} until the barrier opens. */
    private static final class StallingStream extends InputStream {
        private final InputStream in;
        private final CyclicBarrier barrier;
        private long left;

        StallingStream(InputStream in, long at, CyclicBarrier barrier) {
            this.in = in;
            this.left = at;
            this.barrier = barrier;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left == 0) {
                left = -1;
                try {
                    barrier.await(5, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IOException("the other extraction never got halfway", e);
                }
            }
            int read = in.read(b, off, left > 0 ? (int) Math.min(len, left) : len);
            if (left > 0 && read > 0) left -= read;
            return read;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
