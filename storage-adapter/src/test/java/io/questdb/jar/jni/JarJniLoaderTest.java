package io.questdb.jar.jni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.omnigraph.storage.nativelib.Fixtures;
import dev.omnigraph.storage.nativelib.NativeCache;
import dev.omnigraph.storage.nativelib.NativeLibraries;
import dev.omnigraph.storage.nativelib.NativePlatform;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JarJniLoaderTest {
    @TempDir
    Path tmp;

    private URLClassLoader loader;

    /** A class that lives in the jar beside the library, as org.lance.Dataset lives beside liblance_jni.so. */
    public static final class Anchor {
    }

    @BeforeEach
    void configure() {
        System.setProperty(NativeCache.DIR_PROPERTY, tmp.resolve("cache").toString());
        System.setProperty(NativeLibraries.SWEEP_PROPERTY, "false"); // this test must not sweep the real temp folder
    }

    @AfterEach
    void restore() throws IOException {
        System.clearProperty(NativeCache.DIR_PROPERTY);
        System.clearProperty(NativeLibraries.SWEEP_PROPERTY);
        if (loader != null) loader.close();
    }

    @Test
    void hasTheOriginalsShape() throws ReflectiveOperationException {
        // lance-core calls it as an interface method: a class of that name would fail to link.
        assertThat(JarJniLoader.class.isInterface()).isTrue();
        MethodHandles.publicLookup().findStatic(JarJniLoader.class, "loadLib",
                MethodType.methodType(void.class, Class.class, String.class, String.class));
        MethodHandles.publicLookup().findStatic(JarJniLoader.class, "loadLib",
                MethodType.methodType(void.class, Class.class, String.class, String.class, String.class));
        assertThat(RuntimeException.class).isAssignableFrom(LoadException.class);
    }

    @Test
    void jarJniItselfIsNotOnTheClassPath() {
        // Were it back (a dependency that brings it), which JarJniLoader wins would depend on class-path order.
        assertThatThrownBy(() -> Class.forName("io.questdb.jar.jni.Platform"))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void loadsThroughTheCacheAndTheSecondLoadCopiesNothing() throws Exception {
        byte[] library = Fixtures.loadableLibrary().orElse(null);
        assumeTrue(library != null, "needs the JDK's syslookup library");
        String entry = "nativelib/" + NativePlatform.resourcePrefix() + "/"
                + NativePlatform.current().libraryFile("shimtest");
        Class<?> anchor = anchorIn(Map.of(entry, library));
        List<Path> tempBefore = tempCopies();

        JarJniLoader.loadLib(anchor, "/nativelib", "shimtest");
        Path copy = single(tmp.resolve("cache"));
        Object inode = Files.getAttribute(copy, "unix:ino");
        JarJniLoader.loadLib(anchor, "/nativelib/", "shimtest");

        assertThat(copy).hasBinaryContent(library);
        assertThat(single(tmp.resolve("cache"))).isEqualTo(copy);
        assertThat(Files.getAttribute(copy, "unix:ino")).isEqualTo(inode);
        assertThat(tempCopies()).isEqualTo(tempBefore);
    }

    @Test
    void aMissingLibraryIsTheOriginalsLoadException() throws Exception {
        Class<?> anchor = anchorIn(Map.of());

        assertThatThrownBy(() -> JarJniLoader.loadLib(anchor, "/nativelib", "absent", "some-platform"))
                .isInstanceOf(LoadException.class)
                .hasMessage("Internal error: cannot find /nativelib/some-platform/"
                        + NativePlatform.current().libraryFile("absent") + ", broken package?");
    }

    private Class<?> anchorIn(Map<String, byte[]> entries) throws IOException, ClassNotFoundException {
        String classFile = Anchor.class.getName().replace('.', '/') + ".class";
        byte[] bytes;
        try (InputStream in = Anchor.class.getClassLoader().getResourceAsStream(classFile)) {
            bytes = in.readAllBytes();
        }
        Map<String, byte[]> all = new java.util.HashMap<>(entries);
        all.put(classFile, bytes);
        Path jar = Fixtures.jar(tmp.resolve("anchor.jar"), all);
        loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null); // the anchor, and only it, from the jar
        return loader.loadClass(Anchor.class.getName());
    }

    private static Path single(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> all = files.toList();
            assertThat(all).hasSize(1);
            return all.get(0);
        }
    }

    private static List<Path> tempCopies() throws IOException {
        try (Stream<Path> files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return files.filter(f -> f.getFileName().toString().startsWith("libshimtest")).sorted().toList();
        }
    }
}
