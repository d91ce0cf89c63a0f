package dev.omnigraph.storage.nativelib;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.zip.CRC32;

/**
 * The per-user folder holding one verified copy of each native library, named by its identity. A copy is written
 * once (to a private temp name in the folder, checked against the jar's CRC-32 and size, then renamed into place)
 * and afterwards only looked at: a start copies nothing, and a killed JVM leaves nothing behind.
 *
 * <p>Concurrent first starts each extract their own temp file; a rename is atomic, so whichever lands last replaces
 * an identical verified copy and every JVM maps a complete file (one that already mapped the first keeps its inode).
 */
public record NativeCache(Path dir) {
    public static final String DIR_PROPERTY = "omnigraph.native.dir";
    public static final String DIR_ENV = "OMNIGRAPH_NATIVE_DIR";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    /** Copies are never written again: writing into a mapped library would crash every process using it. */
    private static final Set<PosixFilePermission> READ_ONLY = PosixFilePermissions.fromString("r-x------");
    private static final Set<PosixFilePermission> OTHERS_WRITE =
            Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);
    private static final int STICKY = 01000;
    /** A copy whose time is older than this gets its time refreshed on use, so sweeps can tell unused versions. */
    private static final long USE_MARK_MILLIS = 24 * 3600 * 1000L;

    /** {@code -Domnigraph.native.dir}, else {@code $OMNIGRAPH_NATIVE_DIR}, else the launcher's cache folder. */
    public static NativeCache configured() {
        return new NativeCache(configuredDir(System.getProperty(DIR_PROPERTY), System.getenv(DIR_ENV),
                System.getenv("XDG_CACHE_HOME"), System.getProperty("user.home")));
    }

    static Path configuredDir(String property, String env, String xdgCacheHome, String userHome) {
        if (property != null && !property.isBlank()) return Path.of(property);
        if (env != null && !env.isBlank()) return Path.of(env);
        // XDG allows only an absolute path here; bin/omnigraph keeps its repacked jars beside, in the same folder.
        Path cache = xdgCacheHome != null && Path.of(xdgCacheHome).isAbsolute()
                ? Path.of(xdgCacheHome) : Path.of(userHome, ".cache");
        return cache.resolve("omnigraph").resolve("native");
    }

    /**
     * The verified copy of {@code lib}, extracted first when there is none or it is wrong (size, type, owner).
     * Empty when this folder cannot be trusted or written: the caller then falls back to a temp copy.
     *
     * @throws CorruptLibraryException when the jar's bytes do not match the jar's own CRC-32 and size
     */
    public Optional<Path> place(PackagedLibrary lib) throws CorruptLibraryException {
        Path target = dir.resolve(lib.cacheName());
        try {
            if (trusted(false) && intact(target, lib)) {
                markUsed(target);
                return Optional.of(target);
            }
            return trusted(true) ? Optional.of(extract(lib, target)) : Optional.empty();
        } catch (CorruptLibraryException e) {
            throw e;
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            log().warn("Native library cache {} is not usable ({}); falling back to a temp copy", dir, e.toString());
            return Optional.empty();
        }
    }

    /**
     * Deletes a cached copy that does not hold the jar's bytes (a size check cannot see a flipped bit); called only
     * after loading it failed, so the next start extracts it again. Returns whether it was corrupt.
     */
    public boolean evictIfCorrupt(PackagedLibrary lib, Path copy) throws IOException {
        long crc;
        try (InputStream in = Files.newInputStream(copy)) {
            crc = checksum(in, null);
        }
        if (crc == lib.crc()) return false;
        Files.deleteIfExists(copy);
        return true;
    }

    /** Leftovers in this folder: extractions a kill interrupted, and other versions unused for a week. */
    List<StaleCopies> leftovers(Path current, LibraryName name) {
        String keep = current.getFileName().toString();
        return List.of(
                new StaleCopies(dir, file -> file.startsWith(name.base() + "-") && file.endsWith(".part"),
                        Duration.ofMinutes(10)),
                new StaleCopies(dir, file -> name.isCached(file) && !file.equals(keep), Duration.ofDays(7)));
    }

    /**
     * Whether the folder is ours and only ours to write (else another user could swap the library we load).
     * Creates it owner-only when {@code create}; narrows a folder of ours that others may write, unless it is a
     * shared sticky folder such as /tmp, which is never ours alone.
     */
    private boolean trusted(boolean create) throws IOException {
        boolean posix = dir.getFileSystem().supportedFileAttributeViews().contains("posix");
        if (create && !Files.exists(dir)) {
            FileAttribute<?>[] attrs = posix
                    ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)}
                    : new FileAttribute<?>[0];
            try {
                Files.createDirectories(dir, attrs);
            } catch (FileAlreadyExistsException e) {
                // Created by a concurrent start, or a file is in the way: the checks below tell.
            }
        }
        if (!Files.isDirectory(dir)) return false;
        Path real = dir.toRealPath();
        if (!CurrentUser.owns(real)) return false;
        if (!posix) return true;
        Set<PosixFilePermission> permissions = Files.readAttributes(real, PosixFileAttributes.class).permissions();
        if (Collections.disjoint(permissions, OTHERS_WRITE)) return true;
        if ((((Integer) Files.getAttribute(real, "unix:mode")) & STICKY) != 0) return false;
        permissions.removeAll(OTHERS_WRITE);
        Files.setPosixFilePermissions(real, permissions);
        log().info("Native library cache {}: removed group/other write permission", real);
        return true;
    }

    /** A regular file (not a link) of this user with the jar entry's size; the content is trusted from extraction. */
    static boolean intact(Path copy, PackagedLibrary lib) throws IOException {
        try {
            if (Files.getFileAttributeView(copy, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS) != null) {
                PosixFileAttributes a =
                        Files.readAttributes(copy, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                return a.isRegularFile() && a.size() == lib.size() && CurrentUser.is(a.owner());
            }
            BasicFileAttributes a = Files.readAttributes(copy, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return a.isRegularFile() && a.size() == lib.size() && CurrentUser.owns(copy);
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    private Path extract(PackagedLibrary lib, Path target) throws IOException {
        Path part = Files.createTempFile(dir, lib.cacheName() + ".", ".part");
        try {
            long started = System.nanoTime();
            try (InputStream in = lib.source().open();
                 FileChannel out = FileChannel.open(part, StandardOpenOption.WRITE)) {
                long crc = checksum(in, out);
                if (out.size() != lib.size() || crc != lib.crc()) {
                    throw new CorruptLibraryException(lib.name().fileName() + ": the jar holds " + out.size()
                            + " bytes with CRC-32 " + Long.toHexString(crc) + ", its directory says " + lib.size()
                            + " bytes with " + Long.toHexString(lib.crc()));
                }
                out.force(true); // the rename below must never publish a file whose bytes are still in flight
            }
            if (Files.getFileAttributeView(part, PosixFileAttributeView.class) != null) {
                Files.setPosixFilePermissions(part, READ_ONLY);
            }
            if (intact(target, lib)) {
                return target; // a concurrent start published its verified copy while we copied: use that one
            }
            try {
                Files.move(part, target, StandardCopyOption.ATOMIC_MOVE); // replaces a wrong copy in one step
            } catch (IOException e) {
                if (intact(target, lib)) return target; // e.g. Windows refuses to replace a DLL a winner has loaded
                throw e;
            }
            log().info("Extracted {} ({} bytes) to {} in {} ms; later starts load it from there", lib.name().fileName(),
                    lib.size(), target, (System.nanoTime() - started) / 1_000_000);
            return target;
        } finally {
            Files.deleteIfExists(part);
        }
    }

    /** CRC-32 of everything {@code in} holds, copied to {@code out} on the way when it is not null. */
    private static long checksum(InputStream in, FileChannel out) throws IOException {
        CRC32 crc = new CRC32();
        byte[] buffer = new byte[1 << 20];
        for (int read; (read = in.read(buffer)) > 0; ) {
            crc.update(buffer, 0, read);
            if (out != null) {
                ByteBuffer chunk = ByteBuffer.wrap(buffer, 0, read);
                while (chunk.hasRemaining()) out.write(chunk);
            }
        }
        return crc.getValue();
    }

    private static void markUsed(Path copy) {
        try {
            long now = System.currentTimeMillis(); // (java.time would add its class loading to every start)
            if (Files.getLastModifiedTime(copy).toMillis() < now - USE_MARK_MILLIS) {
                Files.setLastModifiedTime(copy, FileTime.fromMillis(now));
            }
        } catch (IOException e) {
            // Only a hint for sweeps of old versions; a read-only cache still serves its copy.
        }
    }

    /** Looked up only when there is something to say: starting SLF4J would otherwise add ~0.1 s to every load. */
    private static org.slf4j.Logger log() {
        return org.slf4j.LoggerFactory.getLogger(NativeCache.class);
    }
}
