package dev.omnigraph.engine.read;

import dev.omnigraph.storage.KeyRowIndex;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * Where each id of a large node table lives ({@link KeyRowIndex}: a fingerprint and a Lance row id per row), one
 * per (dataset path, version), so a keyed read takes its row by id instead of running an indexed scan: on 5,000,000
 * persons a take costs about 0.9 ms where Lance's filtered scan through the BTREE costs 5–11 ms
 * (docs/performance.md, "scale-reads").
 *
 * <p>Built in the background, never on a query's path: the first keyed read of a version finds no index, starts its
 * build (one at a time per table) and scans as before; the reads after the build take. A version that only appended
 * fragments to a held one is built by a scan of those fragments alone ({@link TableReader#rowsByKey}). Only tables of
 * at least {@value #MIN_ROWS_PROPERTY} rows (default 100,000) are indexed: below that the scan is cheap.
 *
 * <p>Nothing stale: a key names one immutable version of a table's main Lance branch, and the index names
 * candidates that the reader checks against the rows it takes ({@link KeyRowIndex}). Nothing unbounded: 16 bytes a
 * row, least recently used evicted under {@value #CAP_PROPERTY} (default 256 MiB; 0 turns it off); a cleanup drops
 * the versions it reclaims.
 */
public final class KeyRowsCache {
    public static final String CAP_PROPERTY = "omnigraph.read.keyRowsCacheBytes";
    public static final String MIN_ROWS_PROPERTY = "omnigraph.read.keyRowsMinRows";
    static final long DEFAULT_CAP_BYTES = 256L << 20;
    static final long DEFAULT_MIN_ROWS = 100_000;

    /** What the cache holds and has done: lookups that found an index, lookups that did not, builds, extensions. */
    public record Stats(int entries, long bytes, long capBytes, long builds, long hits, long misses, long evictions,
                        long dropped, long extensions) implements CacheStats {}

    private static final KeyRowsCache SHARED = new KeyRowsCache(Long.getLong(CAP_PROPERTY, DEFAULT_CAP_BYTES),
            Long.getLong(MIN_ROWS_PROPERTY, DEFAULT_MIN_ROWS));

    private final VersionedLru<KeyRowIndex> entries;
    /** Builds under way, by dataset path: one per table at a time. */
    private final Map<String, Mono<KeyRowIndex>> building = new HashMap<>();
    private long minRows;
    private long builds;
    private long hits;
    private long misses;
    private long extensions;

    KeyRowsCache(long capBytes, long minRows) {
        this.entries = new VersionedLru<>(capBytes, KeyRowIndex::estimatedBytes);
        this.minRows = Math.max(0, minRows);
    }

    /** The process's cache, which every handle's queries share. */
    public static KeyRowsCache shared() {
        return SHARED;
    }

    /** Sets the cap, evicting down to it; 0 turns the cache off and empties it. */
    public synchronized void capBytes(long newCap) {
        entries.capBytes(newCap);
    }

    /** Sets the smallest table that gets an index. */
    public synchronized void minRows(long rows) {
        minRows = Math.max(0, rows);
    }

    public synchronized Stats stats() {
        return new Stats(entries.size(), entries.bytes(), entries.capBytes(), builds, hits, misses, entries.evictions(),
                entries.dropped(), extensions);
    }

    /** Whether a table of {@code rows} rows gets an index at all. */
    synchronized boolean indexes(long rows) {
        return entries.capBytes() > 0 && rows >= minRows && 16 * rows < entries.capBytes();
    }

    /**
     * The index of {@code key} when it is built; otherwise empty, after starting its build with {@code build} (given
     * the newest held version of the same table, which it may extend) unless one is under way for that table.
     */
    Optional<KeyRowIndex> get(VersionedLru.Key key,
                              Function<Optional<VersionedLru.Entry<KeyRowIndex>>, Mono<KeyRowIndex>> build) {
        Mono<KeyRowIndex> started;
        synchronized (this) {
            KeyRowIndex held = entries.get(key);
            if (held != null) {
                hits++;
                return Optional.of(held);
            }
            misses++;
            if (building.containsKey(key.path())) return Optional.empty();
            builds++;
            started = Mono.defer(() -> build.apply(newestBefore(key)))
                    .doOnNext(index -> admit(key, index))
                    .doFinally(signal -> finished(key.path()))
                    .cache();
            building.put(key.path(), started);
        }
        // Failures are not the query's: it scans; the next read of the version tries again.
        started.subscribe(index -> { }, failed -> { });
        return Optional.empty();
    }

    /** Completes once no build is under way (tests wait on it instead of sleeping). */
    public Mono<Void> idle() {
        List<Mono<KeyRowIndex>> pending;
        synchronized (this) {
            pending = new ArrayList<>(building.values());
        }
        return Mono.when(pending.stream().map(m -> m.onErrorResume(e -> Mono.empty())).toList());
    }

    /** A build extended a held index instead of scanning the whole table (counted for tests and reports). */
    synchronized void extended() {
        extensions++;
    }

    private synchronized Optional<VersionedLru.Entry<KeyRowIndex>> newestBefore(VersionedLru.Key key) {
        return entries.newestBefore(key);
    }

    private synchronized void admit(VersionedLru.Key key, KeyRowIndex index) {
        entries.admit(key, index);
    }

    private synchronized void finished(String path) {
        building.remove(path);
    }

    /** Drops the indexes of {@code versions} of the dataset at {@code path}: a cleanup is about to delete them. */
    public synchronized void dropVersions(String path, Collection<Long> versions) {
        entries.dropVersions(path, versions);
    }

    /** Drops every index under graph root {@code root}: a graph is being created there. */
    public synchronized void dropRoot(String root) {
        entries.dropRoot(root);
    }

    /** Whether an index for this dataset version is held (tests). */
    public synchronized boolean holds(String path, long version) {
        return entries.holds(path, version);
    }
}
