package io.questdb.jar.jni;

import dev.omnigraph.storage.nativelib.NativeLibraries;
import dev.omnigraph.storage.nativelib.NativePlatform;
import java.io.FileNotFoundException;
import java.io.IOException;

/**
 * Stands in for jar-jni 1.1.1's loader, which lance-core calls from {@code org.lance.JniLoader} and which this
 * project excludes: that loader copied the library to a fresh temp file on every start and deleted it only on a
 * normal exit, so every killed JVM left a 181 MB copy behind. This one loads a copy extracted once into a per-user
 * cache (see {@link NativeLibraries}). Same methods, resource paths and exceptions as the original.
 *
 * <p>An interface because the original is one: lance-core's call site is an {@code invokestatic} of an interface
 * method, which fails with IncompatibleClassChangeError against a class.
 */
public interface JarJniLoader {

    /**
     * Loads {@code prefix/platformDir/<lib>name<suffix>} (without {@code platformDir/} when it is null), a resource
     * found through {@code cls}.
     */
    static <T> void loadLib(Class<T> cls, String prefix, String name, String platformDir) {
        String path = (prefix.endsWith("/") ? prefix : prefix + "/")
                + (platformDir == null ? "" : platformDir + "/")
                + NativePlatform.current().libraryFile(name);
        try {
            NativeLibraries.load(cls, path);
        } catch (FileNotFoundException e) {
            throw new LoadException("Internal error: cannot find " + path + ", broken package?");
        } catch (IOException e) {
            throw new LoadException("Internal error: cannot unpack " + path, e);
        }
    }

    /** Loads the library of this platform, from {@code prefix/linux-x86-64/} and the like. */
    static <T> void loadLib(Class<T> cls, String prefix, String name) {
        loadLib(cls, prefix, name, NativePlatform.resourcePrefix());
    }
}
