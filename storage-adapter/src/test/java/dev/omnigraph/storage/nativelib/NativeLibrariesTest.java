package dev.omnigraph.storage.nativelib;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real loads (System.load) of a small real library packaged in a jar. */
class NativeLibrariesTest {
    private static final String ENTRY = "nativelib/test/libshimtest.so";

    @TempDir
    Path tmp;

    private byte[] library;
    private URL url;

    @BeforeEach
    void packageALibrary() throws IOException {
        library = Fixtures.loadableLibrary().orElse(null);
        assumeTrue(library != null, "needs the JDK's syslookup library");
        url = Fixtures.entry(Fixtures.jar(tmp.resolve("lib.jar"), Map.of(ENTRY, library)), ENTRY);
    }

    @Test
    void loadsFromTheCache() throws IOException {
        NativeCache cache = new NativeCache(tmp.resolve("cache"));
        Path temp = Files.createDirectory(tmp.resolve("temp"));

        NativeLibraries.Loaded loaded = new NativeLibraries(cache, temp).load(url, "/" + ENTRY);

        assertThat(loaded.cached()).isTrue();
        assertThat(loaded.file()).hasParent(cache.dir()).hasBinaryContent(library);
        assertThat(NativeCacheTest.list(temp)).isEmpty();
    }

    @Test
    void fallsBackToATempCopyWhenTheCacheCannotBeWritten() throws IOException {
        NativeCache unwritable = new NativeCache(Files.write(tmp.resolve("a-file"), new byte[0]).resolve("native"));
        Path temp = Files.createDirectory(tmp.resolve("temp"));

        NativeLibraries.Loaded loaded = new NativeLibraries(unwritable, temp).load(url, "/" + ENTRY);

        assertThat(loaded.cached()).isFalse();
        assertThat(loaded.file()).hasParent(temp).hasBinaryContent(library);
        // jar-jni's name, which a later sweep recognises if this JVM is killed before deleteOnExit runs
        assertThat(new LibraryName("libshimtest.so").isTempCopy(loaded.file().getFileName().toString())).isTrue();
    }

    @Test
    void aDamagedCopyThatFailsToLoadIsRemovedAndATempCopyLoads() throws IOException {
        NativeCache cache = new NativeCache(tmp.resolve("cache"));
        Path temp = Files.createDirectory(tmp.resolve("temp"));
        PackagedLibrary lib = PackagedLibrary.inJar(url).orElseThrow();
        Files.createDirectories(cache.dir());
        // The right size, but built for another machine (ELF e_machine changed): dlopen refuses it.
        byte[] damaged = library.clone();
        damaged[18] ^= 0x7f;
        Path copy = Files.write(cache.dir().resolve(lib.cacheName()), damaged);

        NativeLibraries.Loaded loaded = new NativeLibraries(cache, temp).load(url, "/" + ENTRY);

        assertThat(loaded.cached()).isFalse();
        assertThat(copy).doesNotExist(); // the next start extracts a good one
        assertThat(new NativeLibraries(cache, temp).load(url, "/" + ENTRY).cached()).isTrue();
    }
}
