package dev.omnigraph.storage.nativelib;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.zip.CRC32;

/** Jars holding libraries, a real loadable library, and file times set by hand (no test waits for a clock). */
public final class Fixtures {
    private Fixtures() {
    }

    /** A jar with these entries, compressed as lance-core's are. */
    public static Path jar(Path file, Map<String, byte[]> entries) throws IOException {
        try (OutputStream out = Files.newOutputStream(file); JarOutputStream jar = new JarOutputStream(out)) {
            for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
                jar.putNextEntry(new JarEntry(entry.getKey()));
                jar.write(entry.getValue());
                jar.closeEntry();
            }
        }
        return file;
    }

    public static URL entry(Path jar, String name) throws IOException {
        return new URL("jar:" + jar.toUri() + "!/" + name);
    }

    /** The library at {@code name} in a new jar holding {@code content}. */
    public static PackagedLibrary library(Path dir, String name, byte[] content) throws IOException {
        Path jar = jar(dir.resolve("lib-" + crc(content) + ".jar"), Map.of(name, content));
        return PackagedLibrary.inJar(entry(jar, name)).orElseThrow();
    }

    public static byte[] random(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    public static long crc(byte[] content) {
        CRC32 crc = new CRC32();
        crc.update(content);
        return crc.getValue();
    }

    /**
     * A small shared library every JDK 17 ships that {@code System.load} takes from any path: the JDK's empty
     * {@code syslookup} library (no JNI_OnLoad, nothing runs when it is loaded).
     */
    public static Optional<byte[]> loadableLibrary() throws IOException {
        Path lib = Path.of(System.getProperty("java.home"), "lib", System.mapLibraryName("syslookup"));
        return Files.isRegularFile(lib) ? Optional.of(Files.readAllBytes(lib)) : Optional.empty();
    }

    /** Writes a file and dates it {@code age} before {@code now}. */
    public static Path file(Path path, int size, Instant now, Duration age) throws IOException {
        Files.write(path, new byte[size]);
        Files.setLastModifiedTime(path, FileTime.from(now.minus(age)));
        return path;
    }

    public static boolean isRoot() throws IOException {
        Path self = Path.of("/proc/self");
        return Files.isDirectory(self) && ((Integer) Files.getAttribute(self, "unix:uid")) == 0;
    }
}
