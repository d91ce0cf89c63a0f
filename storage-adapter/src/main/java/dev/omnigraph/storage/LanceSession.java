package dev.omnigraph.storage;

import java.util.Optional;
import org.lance.Session;

/**
 * The one Lance {@link Session} (its index and metadata caches) every dataset this process opens shares. Without
 * it each open gets a session of its own, so every open reads the manifest, fragment metadata and index pages again;
 * what the caches hold is keyed by immutable files (a version's manifest, an index's uuid), so sharing them never
 * serves a stale version. Sized by {@value #INDEX_CACHE_PROPERTY} and {@value #METADATA_CACHE_PROPERTY} (bytes);
 * {@value #MODE_PROPERTY}{@code =none} turns sharing off (what the benchmarks compare against).
 */
final class LanceSession {
    static final String MODE_PROPERTY = "omnigraph.lance.session";
    static final String INDEX_CACHE_PROPERTY = "omnigraph.lance.indexCacheBytes";
    static final String METADATA_CACHE_PROPERTY = "omnigraph.lance.metadataCacheBytes";
    /** Lance's own defaults are 6 GiB and 1 GiB: too much to take silently inside someone else's service. */
    static final long DEFAULT_INDEX_CACHE_BYTES = 512L << 20;
    static final long DEFAULT_METADATA_CACHE_BYTES = 256L << 20;

    private LanceSession() {
    }

    /** The shared session, created (and Lance's native library loaded) on first use; empty when turned off. */
    static Optional<Session> shared() {
        return Holder.SESSION;
    }

    private static final class Holder {
        static final Optional<Session> SESSION = "none".equals(System.getProperty(MODE_PROPERTY)) ? Optional.empty()
                : Optional.of(Session.create(Long.getLong(INDEX_CACHE_PROPERTY, DEFAULT_INDEX_CACHE_BYTES),
                        Long.getLong(METADATA_CACHE_PROPERTY, DEFAULT_METADATA_CACHE_BYTES)));
    }
}
