package dev.omnigraph.engine.index;

import dev.omnigraph.storage.manifest.GraphCommit;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code index ensure} did: the indexes it built per table key (empty when every table already had what
 * its schema implies) and the commit that published them (empty for a no-op: nothing committed or published).
 */
public record EnsureResult(String branch, Map<String, List<String>> built, Optional<GraphCommit> commit) {
    public EnsureResult {
        built = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(built));
    }

    public boolean noop() {
        return built.isEmpty();
    }
}
