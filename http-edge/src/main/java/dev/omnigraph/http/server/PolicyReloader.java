package dev.omnigraph.http.server;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reloads a {@link ServerPolicy} when one of its bundle files changes (a watch on their directories, on a daemon
 * thread of its own) and on {@code SIGHUP} where the JVM lets a program handle it. Every reload is atomic and a
 * bad bundle keeps the old policy ({@link ServerPolicy#reload()}); an editor that writes a file in several steps
 * may cause a refused reload followed by an applied one.
 */
public final class PolicyReloader implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PolicyReloader.class);

    private final ServerPolicy policy;
    private final WatchService watch;
    private final Thread thread;

    private PolicyReloader(ServerPolicy policy, WatchService watch) {
        this.policy = policy;
        this.watch = watch;
        this.thread = new Thread(this::run, "omnigraph-policy-watch");
        this.thread.setDaemon(true);
    }

    /** Starts watching {@code policy}'s files; nothing to watch without a policy. */
    public static PolicyReloader start(ServerPolicy policy) {
        if (!policy.enabled()) return new PolicyReloader(policy, null);
        try {
            WatchService watch = FileSystems.getDefault().newWatchService();
            Set<Path> dirs = new HashSet<>();
            for (Path file : policy.files()) {
                Path dir = file.toAbsolutePath().getParent();
                if (dirs.add(dir)) {
                    dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                            StandardWatchEventKinds.ENTRY_DELETE);
                }
            }
            PolicyReloader reloader = new PolicyReloader(policy, watch);
            reloader.thread.start();
            return reloader;
        } catch (IOException e) {
            LOG.warn("cannot watch the policy files ({}); reload with SIGHUP instead", e.toString());
            return new PolicyReloader(policy, null);
        }
    }

    /**
     * Also reloads on {@code SIGHUP} (for {@code omnigraph serve}; an embedding application owns its signals).
     * Where the JVM refuses the handler, file changes still reload.
     */
    public PolicyReloader onHangup() {
        if (!policy.enabled()) return this;
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("HUP"), signal -> policy.reload());
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            LOG.info("SIGHUP cannot be handled here ({}); policy files are still watched", e.getMessage());
        }
        return this;
    }

    private void run() {
        Set<Path> names = new HashSet<>();
        for (Path file : policy.files()) names.add(file.toAbsolutePath());
        try {
            while (true) {
                WatchKey key = watch.take();
                boolean ours = false;
                Path dir = (Path) key.watchable();
                for (WatchEvent<?> event : key.pollEvents()) {
                    if (event.kind() == StandardWatchEventKinds.OVERFLOW
                            || names.contains(dir.resolve((Path) event.context()))) {
                        ours = true;
                    }
                }
                key.reset();
                if (ours) policy.reload();
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // Closed: stop watching.
        }
    }

    @Override
    public void close() {
        if (watch == null) return;
        try {
            watch.close();
        } catch (IOException e) {
            LOG.debug("closing the policy watch: {}", e.toString());
        }
    }
}
