package dev.omnigraph.storage.manifest;

import dev.omnigraph.storage.TableSnapshot;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The last manifest state one {@link ManifestStore} loaded or published, per graph branch. A hit needs the exact
 * {@code __manifest} version it was read from (number, recorded time, rows, fragments), so a stale entry is only
 * ever a miss: another process's publish moves the version, and a publish planned on a stale entry loses its CAS
 * (every publish rewrites the stamp row, so Lance refuses the older one).
 */
final class ManifestCache {
    private final ConcurrentHashMap<String, ManifestState> latest = new ConcurrentHashMap<>();

    /** The cached state of {@code branch} if it was read from exactly {@code snapshot}. */
    Optional<ManifestState> at(String branch, TableSnapshot snapshot) {
        return Optional.ofNullable(latest.get(branch)).filter(state -> state.manifest().sameVersionAs(snapshot));
    }

    /** The last state known for {@code branch}, unchecked: only a CAS-guarded publish may plan on it. */
    Optional<ManifestState> last(String branch) {
        return Optional.ofNullable(latest.get(branch));
    }

    /**
     * Keeps {@code state} unless an older-looking one would replace a newer (a slow load finishing after a publish).
     * A branch created again restarts its version numbers but not time, hence the second test.
     */
    void remember(ManifestState state) {
        latest.merge(state.branch(), state, (kept, offered) -> keepsMore(kept, offered) ? kept
                : offered.manifestVersion() >= kept.manifestVersion()
                        || offered.manifest().versionTime().isAfter(kept.manifest().versionTime()) ? offered : kept);
    }

    /**
     * A load of the very version a publish of this store left knows no tail; the publish's state does, so a
     * concurrent read must not make the next publish forget it.
     */
    private static boolean keepsMore(ManifestState kept, ManifestState offered) {
        return kept.manifest().sameVersionAs(offered.manifest()) && offered.tail().rows().isEmpty()
                && !kept.tail().rows().isEmpty();
    }

    /** Drops {@code branch}'s entry, whatever it is (the branch was deleted). */
    void drop(String branch) {
        latest.remove(branch);
    }

    /** Drops {@code branch}'s entry if it still is {@code state} (a compaction moved the version under it). */
    void forget(ManifestState state) {
        latest.remove(state.branch(), state);
    }
}
