package dev.omnigraph.engine.read;

import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * What the read caches ({@link TopologyCache}, {@link KeyRowsCache}) keep: one immutable value per table version,
 * least recently used evicted first so the values' estimated heap stays within a cap. Not thread-safe: each cache
 * holds its own lock around every call.
 */
final class VersionedLru<V> {
    /** One table version: the dataset's path (main branch only) and version, and its manifest row count. */
    record Key(String path, long version, long rowCount) {
        boolean under(String pathOrLocation) {
            return path.equals(pathOrLocation) || path.endsWith("/" + pathOrLocation);
        }
    }

    /** A held value with its key. */
    record Entry<V>(Key key, V value) {}

    private final LinkedHashMap<Key, V> entries = new LinkedHashMap<>(16, 0.75f, true);
    private final ToLongFunction<V> bytesOf;
    private long capBytes;
    private long bytes;
    private long evictions;
    private long dropped;

    VersionedLru(long capBytes, ToLongFunction<V> bytesOf) {
        this.capBytes = Math.max(0, capBytes);
        this.bytesOf = bytesOf;
    }

    /** The value of {@code key} (now the most recently used), or null. */
    V get(Key key) {
        return entries.get(key);
    }

    /** Keeps {@code value} when it fits under the cap, evicting the least recently used to make room. */
    boolean admit(Key key, V value) {
        long size = bytesOf.applyAsLong(value);
        if (size > capBytes) return false;
        if (entries.containsKey(key)) return true;
        evictDownTo(capBytes - size);
        entries.put(key, value);
        bytes += size;
        return true;
    }

    /** The entry of the newest version of {@code key}'s dataset below {@code key}'s version, if any. */
    Optional<Entry<V>> newestBefore(Key key) {
        Entry<V> found = null;
        for (Map.Entry<Key, V> e : entries.entrySet()) {
            Key k = e.getKey();
            if (k.path().equals(key.path()) && k.version() < key.version()
                    && (found == null || k.version() > found.key().version())) {
                found = new Entry<>(k, e.getValue());
            }
        }
        return Optional.ofNullable(found);
    }

    long capBytes() {
        return capBytes;
    }

    /** Sets the cap, evicting down to it. */
    void capBytes(long newCap) {
        capBytes = Math.max(0, newCap);
        evictDownTo(capBytes);
    }

    int size() {
        return entries.size();
    }

    long bytes() {
        return bytes;
    }

    long evictions() {
        return evictions;
    }

    long dropped() {
        return dropped;
    }

    /** Drops the entries of {@code versions} of the dataset at {@code path} (full, or relative to the graph root). */
    void dropVersions(String path, Collection<Long> versions) {
        dropIf(k -> k.under(path) && versions.contains(k.version()));
    }

    /** Drops every entry under graph root {@code root}. */
    void dropRoot(String root) {
        String prefix = root.endsWith("/") ? root : root + "/";
        dropIf(k -> k.path().startsWith(prefix));
    }

    boolean holds(String path, long version) {
        return entries.keySet().stream().anyMatch(k -> k.under(path) && k.version() == version);
    }

    private void dropIf(java.util.function.Predicate<Key> drop) {
        Iterator<Map.Entry<Key, V>> it = entries.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Key, V> e = it.next();
            if (drop.test(e.getKey())) {
                bytes -= bytesOf.applyAsLong(e.getValue());
                it.remove();
                dropped++;
            }
        }
    }

    private void evictDownTo(long target) {
        Iterator<Map.Entry<Key, V>> it = entries.entrySet().iterator();
        while (bytes > target && it.hasNext()) {
            bytes -= bytesOf.applyAsLong(it.next().getValue());
            it.remove();
            evictions++;
        }
    }
}
