package dev.omnigraph.storage.nativelib;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.util.Optional;
import java.util.jar.JarEntry;

/**
 * A native library inside a jar, identified by its entry's CRC-32 and size. Both come from the jar's central
 * directory, so telling which copy to load costs a directory lookup, not an inflation of 181 MB.
 */
public record PackagedLibrary(LibraryName name, long size, long crc, Source source) {

    /** Opens the library's (inflated) bytes. */
    @FunctionalInterface
    public interface Source {
        InputStream open() throws IOException;
    }

    /** The library at a {@code jar:} URL; empty for anything else (an exploded class folder, another scheme). */
    public static Optional<PackagedLibrary> inJar(URL url) throws IOException {
        URLConnection connection = url.openConnection();
        if (!(connection instanceof JarURLConnection jar)) {
            return Optional.empty();
        }
        // The JarFile that Class.getResourceAsStream would open too (cached per JVM); only its directory is read.
        JarEntry entry = jar.getJarEntry();
        if (entry == null || entry.getSize() < 0 || entry.getCrc() < 0) {
            return Optional.empty();
        }
        LibraryName name = new LibraryName(entry.getName().substring(entry.getName().lastIndexOf('/') + 1));
        return Optional.of(new PackagedLibrary(name, entry.getSize(), entry.getCrc(), url::openStream));
    }

    /** The file name of this identity in the cache, e.g. {@code liblance_jni-8ad82def-181359552.so}. */
    public String cacheName() {
        return name.cached(crc, size);
    }
}
