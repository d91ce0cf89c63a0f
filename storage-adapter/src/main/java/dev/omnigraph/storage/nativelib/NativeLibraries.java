package dev.omnigraph.storage.nativelib;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Loads a native library packaged in a jar from a verified copy in the per-user {@link NativeCache}; only when the
 * cache cannot be used does it make jar-jni's temp copy (deleted on a normal exit). Then, once per JVM and in the
 * background, it removes the stale temp copies earlier loaders left ({@link LeftoverSweep}).
 */
public final class NativeLibraries {
    /** {@code -Domnigraph.native.sweep=false} turns the background sweep off. */
    public static final String SWEEP_PROPERTY = "omnigraph.native.sweep";
    /** Arrow's C-data loader copies its 40 KB library the same way, under this name. */
    private static final LibraryName ARROW_TEMP_COPY = new LibraryName("jnilib-.tmp");

    private final NativeCache cache;
    private final Path tempDir;

    NativeLibraries(NativeCache cache, Path tempDir) {
        this.cache = cache;
        this.tempDir = tempDir;
    }

    /** Where a library was loaded from: the cache, or (when {@code cached} is false) a temp copy. */
    record Loaded(Path file, boolean cached, LibraryName name) {
    }

    /**
     * Loads the library at {@code resourcePath}, found through {@code anchor}'s class loader; the library is bound to
     * this class's loader, which must be the anchor's (as jar-jni's was).
     *
     * @throws FileNotFoundException when there is no such resource
     * @throws IOException when it cannot be unpacked
     */
    public static void load(Class<?> anchor, String resourcePath) throws IOException {
        Path tempDir = Path.of(System.getProperty("java.io.tmpdir"));
        NativeCache cache = NativeCache.configured();
        Loaded loaded = new NativeLibraries(cache, tempDir).load(anchor.getResource(resourcePath), resourcePath);
        if (Boolean.parseBoolean(System.getProperty(SWEEP_PROPERTY, "true"))) {
            LeftoverSweep.startOnce(() -> sweepAfter(loaded, cache, tempDir));
        }
    }

    /** Where copies of this library collect: jar-jni's and Arrow's in the temp folder, and the cache's own. */
    private static LeftoverSweep sweepAfter(Loaded loaded, NativeCache cache, Path tempDir) {
        Duration age = Duration.ofMinutes(10); // far beyond the moment between a loader's copy and its load
        List<StaleCopies> places = new ArrayList<>(List.of(
                new StaleCopies(tempDir, loaded.name()::isTempCopy, age),
                new StaleCopies(tempDir, ARROW_TEMP_COPY::isTempCopy, age)));
        if (!loaded.cached()) return new LeftoverSweep(places, Optional.empty(), Path.of("/proc"));
        places.addAll(cache.leftovers(loaded.file(), loaded.name()));
        return new LeftoverSweep(places, Optional.of(cache.dir().resolve("sweep.stamp")), Path.of("/proc"));
    }

    Loaded load(URL url, String resourcePath) throws IOException {
        if (url == null) throw new FileNotFoundException(resourcePath);
        LibraryName name = new LibraryName(resourcePath.substring(resourcePath.lastIndexOf('/') + 1));
        Optional<PackagedLibrary> library = identify(url);
        Optional<Path> copy = library.isPresent() ? cache.place(library.get()) : Optional.empty();
        if (copy.isPresent()) {
            try {
                System.load(copy.get().toString());
                return new Loaded(copy.get(), true, name);
            } catch (UnsatisfiedLinkError e) {
                // A noexec mount, the same path bound to another class loader, or a damaged copy: a temp copy loads
                // where jar-jni's did.
                log().warn("Cannot load {} ({}); loading a temp copy instead", copy.get(), e.getMessage());
                try {
                    if (cache.evictIfCorrupt(library.get(), copy.get())) {
                        log().warn("{} did not match the jar and was removed; the next start extracts it again",
                                copy.get());
                    }
                } catch (IOException gone) {
                    // Removed meanwhile (another install's sweep), or unreadable: the temp copy still loads.
                    log().warn("Cannot check {} ({})", copy.get(), gone.toString());
                }
            }
        }
        return new Loaded(tempCopy(url, name), false, name);
    }

    private static Optional<PackagedLibrary> identify(URL url) {
        try {
            return PackagedLibrary.inJar(url);
        } catch (IOException e) {
            return Optional.empty(); // the temp copy below reports what is wrong with the jar
        }
    }

    /** jar-jni's behaviour and names, so that a sweep recognises this copy too if the JVM is killed. */
    private Path tempCopy(URL url, LibraryName name) throws IOException {
        File temp = File.createTempFile(name.base(), name.extension(), tempDir.toFile());
        try (InputStream in = url.openStream()) {
            Files.copy(in, temp.toPath(), StandardCopyOption.REPLACE_EXISTING);
        } finally {
            temp.deleteOnExit();
        }
        System.load(temp.getAbsolutePath());
        return temp.toPath();
    }

    /** Looked up only when there is something to say: starting SLF4J would otherwise add ~0.1 s to every load. */
    private static org.slf4j.Logger log() {
        return org.slf4j.LoggerFactory.getLogger(NativeLibraries.class);
    }
}
