package dev.omnigraph.engine;

import dev.omnigraph.engine.schema.SchemaFiles;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The newest accepted schema this process knows for each root, labelled with a main {@code __manifest} version at
 * or after which it was accepted (the apply's publish, or the version an open read before the contract files).
 * Handles of a root share it, so a schema apply through one handle reaches the others on their next read or write
 * without a storage call; a read-only handle, which another process may write under, also compares the contract's
 * state file (see {@link Omnigraph}).
 */
final class LiveSchemas {
    /** One accepted schema and the main manifest version it is known to be current at. */
    record Labeled(long mainVersion, SchemaFiles.Accepted accepted) {
    }

    private static final ConcurrentHashMap<String, AtomicReference<Labeled>> BY_ROOT = new ConcurrentHashMap<>();

    private LiveSchemas() {
    }

    /**
     * Keeps {@code offered} unless a schema of the same graph labelled at a later version is already known (a graph
     * initialised again at the same root has a new identity domain and replaces the old one); returns the newest.
     */
    static Labeled offer(String root, Labeled offered) {
        return BY_ROOT.computeIfAbsent(root, unused -> new AtomicReference<>())
                .accumulateAndGet(offered, (kept, next) -> kept == null || !sameGraph(kept, next)
                        || next.mainVersion() > kept.mainVersion() ? next : kept);
    }

    static boolean sameGraph(Labeled a, Labeled b) {
        return a.accepted().state().schemaIdentityDomain().equals(b.accepted().state().schemaIdentityDomain());
    }

    static Optional<Labeled> newest(String root) {
        return Optional.ofNullable(BY_ROOT.get(root)).map(AtomicReference::get);
    }
}
