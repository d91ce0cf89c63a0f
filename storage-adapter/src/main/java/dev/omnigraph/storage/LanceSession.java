package dev.omnigraph.storage;

import java.util.Optional;
import org.lance.Session;

/**
 * Whether the datasets this process opens share one Lance {@link Session} (its index and metadata caches). Off by
 * default: each open gets a session of its own, as on Lance 0.39. Shared, an open skips re-reading what another
 * open already cached, but on lance-core 7.0.0 it served wrong data after a schema apply rewrote a table in place
 * (a scan failed with "all columns in a record batch must have the same length" in
 * {@code SchemaEvolutionTest.renamesKeepIdentityDataAndEdges}; the same test passes with a session per open), so it
 * is only for measuring ({@value #MODE_PROPERTY}{@code =shared}; sizes in {@value #INDEX_CACHE_PROPERTY} and
 * {@value #METADATA_CACHE_PROPERTY}, bytes). See docs/architecture.md, "On Lance 7".
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

    /** The shared session, created (and Lance's native library loaded) on first use; empty unless turned on. */
    static Optional<Session> shared() {
        return Holder.SESSION;
    }

    private static final class Holder {
        static final Optional<Session> SESSION = !"shared".equals(System.getProperty(MODE_PROPERTY)) ? Optional.empty()
                : Optional.of(Session.create(Long.getLong(INDEX_CACHE_PROPERTY, DEFAULT_INDEX_CACHE_BYTES),
                        Long.getLong(METADATA_CACHE_PROPERTY, DEFAULT_METADATA_CACHE_BYTES)));
    }
}
