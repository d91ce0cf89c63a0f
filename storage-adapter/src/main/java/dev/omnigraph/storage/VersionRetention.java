package dev.omnigraph.storage;

import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Which versions of one Lance ref a version GC must keep: the listed ones and every version from {@code keepFrom}
 * on ({@link Long#MAX_VALUE} = none by that rule). The ref's latest version and any version a Lance branch was
 * forked from are kept whatever this says.
 */
public record VersionRetention(SortedSet<Long> versions, long keepFrom) {
    public VersionRetention {
        versions = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(versions));
    }

    public static VersionRetention of(Set<Long> versions, long keepFrom) {
        return new VersionRetention(new TreeSet<>(versions), keepFrom);
    }

    public boolean keeps(long version) {
        return version >= keepFrom || versions.contains(version);
    }

    /** Both rules: a version either keeps is kept. */
    public VersionRetention and(VersionRetention other) {
        TreeSet<Long> union = new TreeSet<>(versions);
        union.addAll(other.versions);
        return new VersionRetention(union, Math.min(keepFrom, other.keepFrom));
    }
}
