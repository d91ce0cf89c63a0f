package dev.omnigraph.storage;

import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.StorageFault;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The single-writer guard of a graph root: an exclusive OS file lock on {@code <root>/__writer.lock}, held by a
 * process for as long as it has a read-write handle on the root.
 *
 * <p>Handles in one process share gates, so they may share the lock too (it is counted per canonical root). A second
 * <em>process</em> is refused at once with the holder's pid, host and start time: its open-time recovery sweep would
 * otherwise run underneath the first process's in-flight writes. The lock file's content only names the holder; the
 * OS lock is the guard, so a crashed holder frees the root the moment its process ends. The file is never deleted
 * (deleting a lock file lets two processes lock two different inodes).
 *
 * <p>Every method blocks on file I/O: call it on the storage scheduler.
 */
public final class RootLock implements AutoCloseable {
    public static final String FILE = "__writer.lock";

    private static final Map<Path, Held> HELD = new HashMap<>();

    private final Path root;
    private boolean released;

    private RootLock(Path root) {
        this.root = root;
    }

    /** Who holds a root: what the lock file (or the lease object) says. */
    public record Holder(long pid, String host, Instant since) {
        private static final class Current {
            static final Holder INSTANCE = new Holder(ProcessHandle.current().pid(), hostName(), Instant.now());
        }

        /** This process, as a lock file or lease names it (one start time per JVM). */
        public static Holder current() {
            return Current.INSTANCE;
        }

        public String describe() {
            return "process " + pid + " on host " + host + " (since " + since + ")";
        }
    }

    /** The refusal of a second read-write process, naming the holder (null: unknown) and any detail. */
    public static Conflict refusal(Holder holder, String detail) {
        return new Conflict("the graph is already open read-write in another "
                + (holder == null ? "process" : holder.describe()) + detail
                + "; send writes through that process (for example its HTTP server) or open the graph read-only");
    }

    private record Held(FileChannel channel, FileLock lock, int handles) {
    }

    /**
     * Takes the writer lock of {@code canonicalRoot} for this process, or joins this process's existing hold.
     *
     * @throws Conflict when another process holds it, naming that process
     */
    public static RootLock acquire(Path canonicalRoot) {
        synchronized (HELD) {
            Held held = HELD.get(canonicalRoot);
            if (held != null) {
                HELD.put(canonicalRoot, new Held(held.channel(), held.lock(), held.handles() + 1));
                return new RootLock(canonicalRoot);
            }
            FileChannel channel = null;
            try {
                channel = FileChannel.open(canonicalRoot.resolve(FILE), StandardOpenOption.CREATE,
                        StandardOpenOption.READ, StandardOpenOption.WRITE);
                FileLock lock = channel.tryLock();
                if (lock == null) {
                    Holder holder = readHolder(channel);
                    channel.close();
                    throw refusal(holder, "");
                }
                writeHolder(channel, new Holder(Holder.current().pid(), Holder.current().host(), Instant.now()));
                HELD.put(canonicalRoot, new Held(channel, lock, 1));
                return new RootLock(canonicalRoot);
            } catch (IOException e) {
                closeQuietly(channel);
                throw new StorageFault("cannot take the writer lock of the graph", e);
            }
        }
    }

    /** What the lock file of {@code canonicalRoot} says about its holder (it may be stale: nobody may hold it). */
    public static Holder describe(Path canonicalRoot) {
        try (FileChannel channel = FileChannel.open(canonicalRoot.resolve(FILE), StandardOpenOption.READ)) {
            return readHolder(channel);
        } catch (IOException e) {
            return null;
        }
    }

    /** Leaves this handle's share; the OS lock goes when the process's last handle on the root is released. */
    @Override
    public void close() {
        synchronized (HELD) {
            if (released) {
                return;
            }
            released = true;
            Held held = HELD.get(root);
            if (held == null) {
                return;
            }
            if (held.handles() > 1) {
                HELD.put(root, new Held(held.channel(), held.lock(), held.handles() - 1));
                return;
            }
            HELD.remove(root);
            try {
                held.lock().release();
            } catch (IOException ignored) {
                // Closing the channel below releases the lock as well.
            }
            closeQuietly(held.channel());
        }
    }

    private static void writeHolder(FileChannel channel, Holder holder) throws IOException {
        byte[] text = (holder.pid() + "\n" + holder.host() + "\n" + holder.since() + "\n").getBytes(StandardCharsets.UTF_8);
        channel.truncate(0);
        channel.write(ByteBuffer.wrap(text), 0);
        channel.force(false);
    }

    private static Holder readHolder(FileChannel channel) {
        try {
            ByteBuffer buffer = ByteBuffer.allocate(1024);
            channel.read(buffer, 0);
            String[] lines = new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8).split("\n");
            return lines.length < 3 ? null
                    : new Holder(Long.parseLong(lines[0].trim()), lines[1].trim(), Instant.parse(lines[2].trim()));
        } catch (IOException | RuntimeException unreadable) {
            return null; // the holder is still named as "another process"
        }
    }

    private static String hostName() {
        String fromEnvironment = System.getenv("HOSTNAME");
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return fromEnvironment;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing left to release
        }
    }
}
