package dev.omnigraph.storage;

import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.StorageFault;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import reactor.core.publisher.Mono;

/**
 * {@link ObjectStore} on a local directory. A put writes {@code <name>#<digits>} in the same directory, fsyncs
 * it, renames it over the target and fsyncs the directory, so a crash leaves the old file or the new one.
 * Names containing '#' are reserved for those temp files (and the {@code <name>#lock} files of conditional
 * replaces) and never listed. A version token is the SHA-256 of the content: a conditional replace compares
 * content, which is what a compare-and-swap on a small record needs.
 */
public final class LocalObjectStore implements ObjectStore {
    private static final char TEMP_MARK = '#';
    /** One monitor per key file in this JVM: an OS file lock cannot be taken twice by one process. */
    private static final java.util.concurrent.ConcurrentHashMap<Path, Object> KEY_MONITORS =
            new java.util.concurrent.ConcurrentHashMap<>();

    private final Path root;
    private final StorageScheduler storage;

    public LocalObjectStore(Path root, StorageScheduler storage) {
        this.root = root.toAbsolutePath().normalize();
        this.storage = storage;
    }

    @Override
    public String rootUri() {
        return root.toString();
    }

    @Override
    public Mono<Void> put(String key, byte[] bytes) {
        return storage.run(() -> {
            Path target = resolve(key);
            Path temp = writeTemp(target, bytes);
            try {
                Files.move(temp, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                Files.deleteIfExists(temp);
                throw fault("put", key, e);
            }
            fsyncDirectory(target.getParent());
        });
    }

    @Override
    public Mono<Boolean> putIfAbsent(String key, byte[] bytes) {
        return storage.call(() -> {
            Path target = resolve(key);
            Path temp = writeTemp(target, bytes);
            try {
                // A hard link fails if the target exists: an atomic create-if-absent on local filesystems.
                Files.createLink(target, temp);
                fsyncDirectory(target.getParent());
                return true;
            } catch (FileAlreadyExistsException exists) {
                return false;
            } catch (IOException e) {
                throw fault("putIfAbsent", key, e);
            } finally {
                Files.deleteIfExists(temp);
            }
        });
    }

    @Override
    public Mono<Optional<byte[]>> get(String key) {
        return storage.call(() -> {
            Path target = resolve(key);
            try {
                return Optional.of(Files.readAllBytes(target));
            } catch (NoSuchFileException missing) {
                return Optional.empty();
            } catch (IOException e) {
                throw fault("get", key, e);
            }
        });
    }

    @Override
    public Mono<Optional<Versioned>> getVersioned(String key) {
        return get(key).map(found -> found.map(bytes -> new Versioned(bytes, versionOf(bytes))));
    }

    /**
     * Under this JVM's monitor and an OS lock on {@code <key>#lock} (so other processes' replaces wait): read the
     * current content, compare its digest, then write a temp file and rename it over the key.
     */
    @Override
    public Mono<Boolean> replaceIf(String key, String expectedVersion, byte[] bytes) {
        return storage.call(() -> {
            Path target = resolve(key);
            synchronized (KEY_MONITORS.computeIfAbsent(target, path -> new Object())) {
                Files.createDirectories(target.getParent());
                Path lockFile = target.resolveSibling(target.getFileName() + String.valueOf(TEMP_MARK) + "lock");
                try (FileChannel lock = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                     java.nio.channels.FileLock held = lock.lock()) {
                    byte[] current;
                    try {
                        current = Files.readAllBytes(target);
                    } catch (NoSuchFileException missing) {
                        return false;
                    }
                    if (!versionOf(current).equals(expectedVersion)) {
                        return false;
                    }
                    Path temp = writeTemp(target, bytes);
                    try {
                        Files.move(temp, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    } finally {
                        Files.deleteIfExists(temp);
                    }
                    fsyncDirectory(target.getParent());
                    return true;
                } catch (IOException e) {
                    throw fault("replaceIf", key, e);
                }
            }
        });
    }

    private static String versionOf(byte[] bytes) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Mono<List<String>> list(String prefix) {
        return storage.call(() -> walk(prefix).stream().map(StoredObject::key).toList());
    }

    @Override
    public Mono<List<StoredObject>> listObjects(String prefix) {
        return storage.call(() -> walk(prefix));
    }

    /** The regular files under {@code prefix} with their attributes, sorted by key, without temp files. */
    private List<StoredObject> walk(String prefix) {
        Path dir = resolveDirectory(prefix);
        Optional<BasicFileAttributes> found = attributes(dir, "list", prefix);
        if (found.isEmpty()) {
            return List.of();
        }
        if (!found.get().isDirectory()) {
            throw new StorageFault("list of " + dir + " failed: it is not a directory", null);
        }
        List<StoredObject> objects = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path path : (Iterable<Path>) files::iterator) {
                String key = root.relativize(path).toString().replace('\\', '/');
                if (key.indexOf(TEMP_MARK) >= 0) {
                    continue;
                }
                // A file removed between the walk and this read (a concurrent delete) is simply not listed.
                attributes(path, "list", prefix).filter(BasicFileAttributes::isRegularFile).ifPresent(attrs ->
                        objects.add(new StoredObject(key, attrs.size(), attrs.lastModifiedTime().toInstant())));
            }
        } catch (IOException e) {
            throw fault("list", prefix, e);
        } catch (java.io.UncheckedIOException e) {
            // Files.walk reports an unreadable entry below the prefix this way.
            throw fault("list", prefix, e.getCause());
        }
        objects.sort(java.util.Comparator.comparing(StoredObject::key));
        return List.copyOf(objects);
    }

    @Override
    public Mono<Boolean> delete(String key) {
        return delete(key, true);
    }

    /** The unlink without the directory fsync that would make it survive a power loss. */
    @Override
    public Mono<Boolean> deleteLazily(String key) {
        return delete(key, false);
    }

    private Mono<Boolean> delete(String key, boolean durable) {
        return storage.call(() -> {
            Path target = resolve(key);
            try {
                boolean existed = Files.deleteIfExists(target);
                if (existed && durable) {
                    fsyncDirectory(target.getParent());
                }
                return existed;
            } catch (IOException e) {
                throw fault("delete", key, e);
            }
        });
    }

    /**
     * True or false only when the filesystem says so; any other I/O error (permissions, a file where a directory
     * should be, a symlink loop) is a {@link StorageFault}, never a silent "absent".
     */
    @Override
    public Mono<Boolean> exists(String key) {
        return storage.call(() -> attributes(resolve(key), "exists", key).isPresent());
    }

    /** The attributes of {@code path} (following links), empty when it does not exist, loud on any other error. */
    private Optional<BasicFileAttributes> attributes(Path path, String operation, String key) {
        try {
            return Optional.of(Files.readAttributes(path, BasicFileAttributes.class));
        } catch (NoSuchFileException missing) {
            return Optional.empty();
        } catch (IOException e) {
            throw fault(operation, key, e);
        }
    }

    private Path writeTemp(Path target, byte[] bytes) throws IOException {
        Files.createDirectories(target.getParent());
        Path temp = target.resolveSibling(target.getFileName() + String.valueOf(TEMP_MARK)
                + Long.toUnsignedString(ThreadLocalRandom.current().nextLong()));
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        } catch (IOException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        return temp;
    }

    private static void fsyncDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException ignored) {
            // Some filesystems refuse to open directories; the rename itself is still atomic there.
        }
    }

    private Path resolve(String key) {
        validateKey(key, false);
        return root.resolve(key).normalize();
    }

    private Path resolveDirectory(String prefix) {
        validateKey(prefix, true);
        return prefix.isEmpty() ? root : root.resolve(prefix).normalize();
    }

    /** The shared key rule ({@link ObjectKeys}), and no temp marker: those names are this store's own. */
    private static void validateKey(String key, boolean prefix) {
        ObjectKeys.require(key, prefix);
        if (key.indexOf(TEMP_MARK) >= 0) {
            throw new BadRequest("invalid object key '" + key + "': it must not contain '" + TEMP_MARK + "'");
        }
    }

    private StorageFault fault(String operation, String key, IOException cause) {
        return new StorageFault(operation + " of " + root.resolve(key) + " failed: " + cause.getMessage(), cause);
    }
}
