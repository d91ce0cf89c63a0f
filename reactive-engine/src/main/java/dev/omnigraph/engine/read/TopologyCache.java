package dev.omnigraph.engine.read;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * In-memory adjacency ({@link Topology}) of edge tables, one per (dataset path, version), shared by every query and
 * every graph branch that pins that version in this process, built lazily by the first traversal that needs it.
 *
 * <p>Nothing stale: a key names one immutable version of a table's main Lance branch (plus the row count the
 * manifest records for it), and a query asks only for the version it pinned, so an entry can never answer for
 * another version. Lance branches (a graph branch that wrote the table) are not cached: a branch deleted and created
 * again restarts its version numbers at the same path. A cleanup drops the entries of the versions it reclaims
 * ({@link #dropVersions}).
 *
 * <p>Nothing unbounded: the entries' estimated heap stays within {@code capBytes}, least recently used evicted first;
 * a table whose topology could not fit is not built again (its traversals scan, as without the cache): refused
 * up front by its row count, abandoned mid-build, or remembered after one build. The cap is the
 * system property {@value #CAP_PROPERTY} (bytes; default 256 MiB; 0 turns the cache off).
 */
public final class TopologyCache {
    public static final String CAP_PROPERTY = "omnigraph.read.topologyCacheBytes";
    static final long DEFAULT_CAP_BYTES = 256L << 20;
    /**
     * A topology's heap per edge row, at least (8 bytes of CSR/CSC plus, in a graph with about as many nodes as
     * edges, about half a new id per edge): a table above the cap by this measure is never scanned for one.
     */
    static final long MIN_BYTES_PER_EDGE = 64;
    /** Tables whose build passed the cap are remembered (this many at most), so they are not scanned again. */
    private static final int REMEMBERED_REFUSALS = 1024;

    /**
     * What the cache holds and has done, for tests, reports and meters: a lookup while the cache is on is a hit or
     * a miss (built, joined a build under way, or refused as too large); evictions make room under the cap,
     * drops follow a cleanup or a graph created again.
     */
    public record Stats(int entries, long bytes, long capBytes, long builds, long hits, long misses, long evictions,
                        long dropped, long extensions) implements CacheStats {}


    private static final TopologyCache SHARED = new TopologyCache(Long.getLong(CAP_PROPERTY, DEFAULT_CAP_BYTES));

    private final VersionedLru<Topology> entries;
    private final Map<VersionedLru.Key, Mono<Topology>> building = new HashMap<>();
    private final LinkedHashMap<VersionedLru.Key, Boolean> refused = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<VersionedLru.Key, Boolean> eldest) {
            return size() > REMEMBERED_REFUSALS;
        }
    };
    private long builds;
    private long hits;
    private long misses;
    private long extensions;

    TopologyCache(long capBytes) {
        this.entries = new VersionedLru<>(capBytes, Topology::estimatedBytes);
    }

    /** The process's cache, which every handle's queries share. */
    public static TopologyCache shared() {
        return SHARED;
    }

    /** Sets the cap, evicting down to it; 0 turns the cache off and empties it. */
    public synchronized void capBytes(long newCap) {
        entries.capBytes(newCap);
        refused.clear(); // what did not fit may fit now
    }

    public synchronized Stats stats() {
        return new Stats(entries.size(), entries.bytes(), entries.capBytes(), builds, hits, misses, entries.evictions(),
                entries.dropped(), extensions);
    }

    /**
     * The topology of {@code key}: cached, or built by {@code build} (one build per key at a time, shared by the
     * queries that wait for it), or empty when the cache is off or the table could not fit.
     */
    Mono<Optional<Topology>> get(VersionedLru.Key key, Supplier<Mono<Topology>> build) {
        Mono<Topology> pending;
        synchronized (this) {
            if (entries.capBytes() == 0) return Mono.just(Optional.empty());
            if (key.rowCount() * MIN_BYTES_PER_EDGE > entries.capBytes() || refused.containsKey(key)) {
                misses++;
                return Mono.just(Optional.empty());
            }
            Topology cached = entries.get(key);
            if (cached != null) {
                hits++;
                return Mono.just(Optional.of(cached));
            }
            misses++;
            pending = building.get(key);
            if (pending == null) {
                builds++;
                pending = Mono.defer(build).doOnNext(t -> admit(key, t))
                        .onErrorResume(Topology.TooLarge.class, tooLarge -> {
                            refuse(key);
                            return Mono.empty();
                        })
                        .doFinally(signal -> finished(key)).cache();
                building.put(key, pending);
            }
        }
        return pending.map(Optional::of).defaultIfEmpty(Optional.empty());
    }

    /**
     * The cached entry of the newest version of {@code key}'s dataset below {@code key}'s version, if any: a build
     * may extend it when the table only gained fragments since ({@link TableReader#topology}).
     */
    synchronized Optional<VersionedLru.Entry<Topology>> newestBefore(VersionedLru.Key key) {
        return entries.newestBefore(key);
    }

    /** A build extended a cached topology instead of scanning the whole table (counted for tests and reports). */
    synchronized void extended() {
        extensions++;
    }

    /** The cap a build may grow to before it gives up ({@link Topology.TooLarge}). */
    synchronized long capBytes() {
        return entries.capBytes();
    }

    private synchronized void refuse(VersionedLru.Key key) {
        refused.put(key, Boolean.TRUE);
    }

    private synchronized void finished(VersionedLru.Key key) {
        building.remove(key);
    }

    /** Keeps a built topology when it fits; one that cannot is remembered, so later queries scan instead. */
    private synchronized void admit(VersionedLru.Key key, Topology topology) {
        if (!entries.admit(key, topology)) refused.put(key, Boolean.TRUE);
    }

    /**
     * Drops the entries of {@code versions} of the dataset at {@code path} (a full path, or a location relative to
     * the graph root): a cleanup is about to delete them.
     */
    public synchronized void dropVersions(String path, Collection<Long> versions) {
        entries.dropVersions(path, versions);
    }

    /**
     * Drops every entry under graph root {@code root}: a graph is being created there, so its tables' locations and
     * versions start again and an entry of an earlier graph at the same root would answer for the wrong one.
     */
    public synchronized void dropRoot(String root) {
        entries.dropRoot(root);
        String prefix = root.endsWith("/") ? root : root + "/";
        refused.keySet().removeIf(key -> key.path().startsWith(prefix));
    }

    /** Whether an entry for this dataset version is held (tests). */
    public synchronized boolean holds(String path, long version) {
        return entries.holds(path, version);
    }
}
