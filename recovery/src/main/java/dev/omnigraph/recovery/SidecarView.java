package dev.omnigraph.recovery;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-memory copy of a root's {@code __recovery/} directory, shared by every read-write handle of the root in
 * this process. The root has a single writer process ({@code RootLock}), so once loaded (by every read-write open's
 * sweep) the pending sidecars are exactly what this process wrote and did not delete, and the write path reads
 * them without a storage call.
 *
 * <p>The one rule: the view never claims a sidecar is gone while it may be on disk. A write or delete marks its
 * sidecar in flight before touching storage; only a delete that succeeded removes it, and a write or delete that
 * failed or was cancelled leaves it uncertain, so the next listing reads that one file again. Stamps order a
 * directory load against writes and deletes that ran while it listed, so a load never overrides newer knowledge.
 */
final class SidecarView {
    private static final ConcurrentHashMap<String, SidecarView> BY_ROOT = new ConcurrentHashMap<>();

    /** What the view knows of one sidecar. */
    sealed interface Entry {
        long stamp();

        /** On disk with this content. */
        record Known(long stamp, Sidecar sidecar) implements Entry {
        }

        /** A write or delete is running: a listing reads the file, and only the operation's end settles it. */
        record InFlight(long stamp) implements Entry {
        }

        /** A write or delete failed: present or absent, the next listing reads the file and settles it. */
        record Uncertain(long stamp) implements Entry {
        }
    }

    /** The entries (by operation id) and whether the directory was ever loaded. */
    record Snapshot(boolean loaded, List<Map.Entry<String, Entry>> entries) {
    }

    private final TreeMap<String, Entry> entries = new TreeMap<>();
    private long clock;
    private boolean loaded;

    static SidecarView forRoot(String canonicalRoot) {
        return BY_ROOT.computeIfAbsent(canonicalRoot, root -> new SidecarView());
    }

    /** How many sidecars this view knows of (in flight, on disk, or uncertain). */
    synchronized int size() {
        return entries.size();
    }

    synchronized Snapshot snapshot() {
        return new Snapshot(loaded, List.copyOf(new ArrayList<>(entries.entrySet())));
    }

    /** Marks {@code operationId} in flight before its write or delete touches storage; returns the stamp to settle with. */
    synchronized long begin(String operationId) {
        long stamp = ++clock;
        entries.put(operationId, new Entry.InFlight(stamp));
        return stamp;
    }

    synchronized void written(String operationId, long stamp, Sidecar sidecar) {
        if (isInFlight(operationId, stamp)) {
            entries.put(operationId, new Entry.Known(++clock, sidecar));
        }
    }

    synchronized void deleted(String operationId, long stamp) {
        if (isInFlight(operationId, stamp)) {
            entries.remove(operationId);
        }
    }

    /** The write or delete failed or was cancelled: its effect on disk is unknown. */
    synchronized void unsettled(String operationId, long stamp) {
        if (isInFlight(operationId, stamp)) {
            entries.put(operationId, new Entry.Uncertain(++clock));
        }
    }

    /** The stamp of {@code operationId}'s entry, or -1 without one: taken before reading its file. */
    synchronized long stampOf(String operationId) {
        Entry entry = entries.get(operationId);
        return entry == null ? -1 : entry.stamp();
    }

    /**
     * A read of {@code operationId}'s file that began at {@code stamp} found {@code onDisk}: the view takes it
     * unless the entry changed meanwhile or a write or delete is still running (only its own end settles it). So
     * an uncertain entry is settled, and an entry whose file is gone is forgotten at the first read.
     */
    synchronized void observed(String operationId, long stamp, Optional<Sidecar> onDisk) {
        Entry entry = entries.get(operationId);
        if (entry == null || entry.stamp() != stamp || entry instanceof Entry.InFlight) {
            return;
        }
        if (onDisk.isPresent()) {
            entries.put(operationId, new Entry.Known(++clock, onDisk.get()));
        } else {
            entries.remove(operationId);
        }
    }

    /** The stamp a directory load starts from; see {@link #install}. */
    synchronized long loadStarted() {
        return clock;
    }

    /**
     * Installs a directory listing that began at {@code startedAt}. Entries in flight or uncertain, and entries
     * settled after the listing began, are newer than (or not decided by) the listing and stay as they are.
     */
    synchronized void install(long startedAt, Map<String, Sidecar> listed) {
        TreeMap<String, Entry> next = new TreeMap<>();
        entries.forEach((id, entry) -> {
            if (!(entry instanceof Entry.Known) || entry.stamp() > startedAt) {
                next.put(id, entry);
            }
        });
        listed.forEach((id, sidecar) -> next.putIfAbsent(id, new Entry.Known(++clock, sidecar)));
        entries.clear();
        entries.putAll(next);
        loaded = true;
    }

    private boolean isInFlight(String operationId, long stamp) {
        return entries.get(operationId) instanceof Entry.InFlight inFlight && inFlight.stamp() == stamp;
    }
}
