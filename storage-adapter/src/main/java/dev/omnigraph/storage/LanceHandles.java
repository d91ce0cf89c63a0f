package dev.omnigraph.storage;

import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.Dataset;

/**
 * Opened datasets kept for reuse by scans, one per (main-ref dataset path, version): a point read of a pinned version
 * then skips the open and finds the BTREE pages its earlier reads loaded in that handle's own caches. A version is
 * immutable, so a kept handle answers exactly as a fresh open would; each handle has its own Lance session (the
 * 7.0.0 shared-session bug of lance.md needs one session across versions). Lance branch refs are not kept (a branch
 * deleted and created again restarts its version numbers at the same path).
 *
 * <p>A handle opened with credentials that expire is kept only until they are close to expiry
 * ({@link CredentialRefresh}): Lance keeps the storage options a dataset was opened with for its life, so a scan
 * then asks the root's source for the current options and, when they differ (fresh credentials), retires the
 * handle and opens the version again with them; while the source still gives the same ones, the handle is used.
 *
 * <p>At most {@value #PROPERTY} handles ({@value #DEFAULT_HANDLES} by default; 0 turns reuse off), least recently
 * used closed first once no scan holds it; a version GC closes the handles of the versions it deletes; the storage's
 * close closes the rest before its allocator check. Every method runs on a storage thread or under the monitor only.
 */
final class LanceHandles {
    static final String PROPERTY = "omnigraph.lance.keptHandles";
    static final int DEFAULT_HANDLES = 64;

    private record Key(String path, long version) {}

    /** One kept dataset, its allocator, and how many open scans use it. */
    static final class Handle {
        private final Dataset dataset;
        private final BufferAllocator allocator;
        private final LanceStorageOptions.Current options; // what it was opened with
        private int users;
        private boolean retired;
        /** What an open of this version answers, read once (a version never changes). */
        private volatile TableSnapshot snapshot;

        private Handle(Dataset dataset, BufferAllocator allocator, LanceStorageOptions.Current options) {
            this.dataset = dataset;
            this.allocator = allocator;
            this.options = options;
        }

        Dataset dataset() {
            return dataset;
        }

        TableSnapshot snapshot(TableRef ref) {
            TableSnapshot kept = snapshot;
            if (kept == null) snapshot = kept = LanceDatasets.snapshotOf(ref, dataset);
            return kept;
        }
    }

    private final LanceDatasets datasets;
    private final int capacity;
    private final LinkedHashMap<Key, Handle> kept = new LinkedHashMap<>(16, 0.75f, true);
    /** Opens answered by {@link #keptSnapshot} (tests). */
    private final java.util.concurrent.atomic.AtomicLong keptOpens = new java.util.concurrent.atomic.AtomicLong();
    private final KeptHandleStats stats;

    LanceHandles(LanceDatasets datasets, int capacity) {
        this.datasets = datasets;
        this.capacity = Math.max(0, capacity);
        this.stats = new KeptHandleStats(this::size, this.capacity);
    }

    KeptHandleStats stats() {
        return stats;
    }

    static int configuredCapacity() {
        return Integer.getInteger(PROPERTY, DEFAULT_HANDLES);
    }

    /** Whether scans of {@code ref} may reuse a kept handle. */
    boolean covers(TableRef ref) {
        return capacity > 0 && ref.branch().isEmpty();
    }

    /** The kept handle of {@code ref} at {@code version}, opened now if need be; release it with {@link #release}. */
    Handle acquire(TableRef ref, long version) {
        StorageScheduler.requireStorageThread("scan");
        Key key = new Key(ref.path(), version);
        synchronized (this) {
            Handle h = kept.get(key);
            if (h != null && !CredentialRefresh.due(h.options.expiresAt())) {
                h.users++;
                stats.hit();
                return h;
            }
        }
        // A miss, or a handle whose credentials are close to expiry: what would a fresh open get now (may block)?
        LanceStorageOptions.Current options = LanceStorageOptions.currentFor(ref.uri());
        Handle expiring = null;
        synchronized (this) {
            Handle h = kept.get(key);
            if (h != null && (h.options.equals(options) || !CredentialRefresh.due(h.options.expiresAt()))) {
                h.users++; // the source has nothing fresher yet (or another scan re-opened it): keep using it
                stats.hit();
                return h;
            }
            if (h != null) { // opened with credentials about to expire: open the version again below
                kept.remove(key);
                h.retired = true;
                if (h.users == 0) expiring = h;
            }
        }
        if (expiring != null) closeNow(expiring);
        stats.miss();
        BufferAllocator allocator = datasets.childAllocator("kept:" + ref.path() + "@" + version);
        Dataset dataset;
        try {
            dataset = LanceDatasets.open(allocator, ref, OptionalLong.of(version), options.options());
        } catch (RuntimeException e) {
            allocator.close();
            throw e;
        }
        Handle opened = new Handle(dataset, allocator, options);
        opened.users = 1;
        Handle other;
        synchronized (this) {
            other = kept.get(key);
            if (other != null) {
                other.users++;
            } else {
                kept.put(key, opened);
                evictOver(capacity);
            }
        }
        if (other != null) { // another scan kept the same version first: use it, close ours
            closeNow(opened);
            return other;
        }
        return opened;
    }

    /**
     * What opening {@code ref} at {@code version} (latest when empty) answers, from a kept handle; empty when the
     * caller must open as usual. The latest version is asked of a kept handle of the same dataset (Lance lists the
     * version files: tens of microseconds, where an open reads and decodes the manifest again), so a read of a head
     * that has not moved costs no open. A head that moved is opened here and kept, but only for a dataset that
     * already has a kept handle (one that reads go through, such as the graph manifest after this process's own
     * publish); a pinned version that is not kept, or a dataset with none kept, is left to the ordinary open.
     */
    Optional<TableSnapshot> keptSnapshot(TableRef ref, OptionalLong version) {
        StorageScheduler.requireStorageThread("open");
        if (!covers(ref)) return Optional.empty();
        long wanted;
        if (version.isPresent()) {
            wanted = version.getAsLong();
        } else {
            Handle probe = anyOf(ref.path());
            if (probe == null) return Optional.empty();
            try {
                wanted = probe.dataset.latestVersion();
            } catch (RuntimeException e) {
                return Optional.empty(); // the ordinary open reports what is wrong, typed
            } finally {
                release(probe);
            }
        }
        Handle at;
        synchronized (this) {
            at = kept.get(new Key(ref.path(), wanted));
            if (at != null) {
                at.users++;
                keptOpens.incrementAndGet();
                stats.hit();
            }
        }
        if (at == null) {
            if (version.isPresent()) return Optional.empty();
            at = acquire(ref, wanted); // the head moved: open it once, kept for the reads that follow
        }
        try {
            return Optional.of(at.snapshot(ref));
        } finally {
            release(at);
        }
    }

    /** The most recently used kept handle of the dataset at {@code path}, acquired; null when none is kept. */
    private synchronized Handle anyOf(String path) {
        Handle found = null;
        for (Map.Entry<Key, Handle> e : kept.entrySet()) {
            if (e.getKey().path().equals(path)) found = e.getValue();
        }
        if (found != null) found.users++;
        return found;
    }

    /** A scan is done with {@code h}: closed now if it was retired and nobody else uses it. */
    void release(Handle h) {
        boolean close;
        synchronized (this) {
            h.users--;
            close = h.retired && h.users == 0;
        }
        if (close) closeNow(h);
    }

    /** Closes the handles of {@code versions} of the dataset at {@code path} (full, or relative to a root). */
    void drop(String path, Collection<Long> versions) {
        retireWhere(key -> (key.path().equals(path) || key.path().endsWith("/" + path)) && versions.contains(key.version()));
    }

    /**
     * Closes every handle of the dataset at {@code path}: a dataset is being created there, so its version numbers
     * start again and a kept handle of an earlier dataset at the same path would answer for the wrong one.
     */
    void dropDataset(String path) {
        retireWhere(key -> key.path().equals(path));
    }

    /** Closes every handle (the storage is closing; scans have finished). */
    void closeAll() {
        retireWhere(key -> true);
    }

    long keptOpens() {
        return keptOpens.get();
    }

    synchronized int size() {
        return kept.size();
    }

    private void retireWhere(java.util.function.Predicate<Key> which) {
        java.util.List<Handle> toClose = new java.util.ArrayList<>();
        synchronized (this) {
            Iterator<Map.Entry<Key, Handle>> it = kept.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<Key, Handle> e = it.next();
                if (!which.test(e.getKey())) continue;
                it.remove();
                e.getValue().retired = true;
                if (e.getValue().users == 0) toClose.add(e.getValue());
            }
        }
        toClose.forEach(LanceHandles::closeNow);
    }

    /** Under the monitor: retires the least recently used beyond {@code max}; closes those nobody uses, later. */
    private void evictOver(int max) {
        Iterator<Map.Entry<Key, Handle>> it = kept.entrySet().iterator();
        java.util.List<Handle> idle = new java.util.ArrayList<>();
        while (kept.size() > max && it.hasNext()) {
            Handle h = it.next().getValue();
            it.remove();
            h.retired = true;
            stats.evicted();
            if (h.users == 0) idle.add(h);
        }
        idle.forEach(LanceHandles::closeNow); // native close under our monitor: short, and only on storage threads
    }

    private static void closeNow(Handle h) {
        try {
            h.dataset.close();
        } finally {
            h.allocator.close();
        }
    }
}
