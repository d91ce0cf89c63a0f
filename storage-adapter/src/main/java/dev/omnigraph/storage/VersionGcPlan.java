package dev.omnigraph.storage;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a version GC of one dataset would delete (see {@link TableStorage#planVersionGc}): version manifests no
 * retention rule keeps, and the data, deletion, index and transaction files that only such versions (or no version
 * at all, past the orphan cutoff) reference. {@code path} is the dataset as Lance opens it; victims' locations are
 * keys of the graph root's {@link ObjectStore} the plan was made on.
 */
public record VersionGcPlan(String path, List<Victim> files, List<Victim> manifests) {
    public VersionGcPlan {
        Objects.requireNonNull(path, "path");
        files = List.copyOf(files);
        manifests = List.copyOf(manifests);
    }

    /** One object to delete: its key, how many bytes it frees, and (manifests only) its ref and version. */
    public record Victim(String location, long bytes, Optional<String> ref, long version) {
        public Victim {
            Objects.requireNonNull(location, "location");
            Objects.requireNonNull(ref, "ref");
        }

        static Victim file(String location, long bytes) {
            return new Victim(location, bytes, Optional.empty(), -1);
        }
    }

    /** Which half of a plan to carry out: referenced files first, then the manifests, so a kill in between is safe. */
    public enum Phase { FILES, MANIFESTS }

    public long bytes() {
        return files.stream().mapToLong(Victim::bytes).sum() + manifests.stream().mapToLong(Victim::bytes).sum();
    }

    public boolean isEmpty() {
        return files.isEmpty() && manifests.isEmpty();
    }
}
