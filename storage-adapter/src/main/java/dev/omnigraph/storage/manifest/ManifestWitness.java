package dev.omnigraph.storage.manifest;

import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts, per {@code __manifest} dataset in this JVM, the commits made on its main branch through any
 * {@link ManifestStore} of the process (publishes, folds, fences, the genesis), each counted once it has landed.
 * A store keeps with each state it knows to be the latest the count at that moment; while the count has not moved
 * since, no commit of this process followed it. Only a process whose writer tenure excludes every other writer (a
 * local root's OS lock) may take that as proof that the state is the live one ({@link ManifestStore#provenLatest}):
 * every other process is then locked out, and on main every in-process commit runs under the branch gate.
 */
final class ManifestWitness {
    /** No proof: the state was read or published while other commits of this process may have landed. */
    static final long UNKNOWN = -1;

    private static final ConcurrentHashMap<String, AtomicLong> COMMITS = new ConcurrentHashMap<>();

    private ManifestWitness() {
    }

    /** The counter of the manifest at {@code manifestPath} (a local path is normalised; a URI is taken as given). */
    static AtomicLong of(String manifestPath) {
        String key = manifestPath.contains("://") ? manifestPath : Path.of(manifestPath).toAbsolutePath().normalize().toString();
        return COMMITS.computeIfAbsent(key, unused -> new AtomicLong());
    }
}
