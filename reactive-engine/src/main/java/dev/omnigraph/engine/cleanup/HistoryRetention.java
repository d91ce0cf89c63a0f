package dev.omnigraph.engine.cleanup;

import dev.omnigraph.storage.VersionRetention;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The kept graph states turned into per-dataset, per-Lance-ref retention, for the three kinds of dataset cleanup
 * collects. One rule: a version is kept when a kept state needs it (the storage adapter adds each ref's latest
 * version and every version a Lance branch was forked from).
 */
final class HistoryRetention {
    private HistoryRetention() {
    }

    /**
     * Table datasets, by location: the versions the kept states pin, and per ref a floor at its owning branch's
     * current pin, so unpublished drift above it stays for {@code repair}.
     */
    static Map<String, Map<Optional<String>, VersionRetention>> tables(List<KeptState> kept) {
        Map<String, Map<Optional<String>, Set<Long>>> pinned = new TreeMap<>();
        Map<String, Map<Optional<String>, Long>> floors = new HashMap<>();
        for (KeptState state : kept) {
            Optional<String> ownRef = GraphBranches.lanceRef(state.branch().name());
            for (TableEntry entry : state.state().tables().values()) {
                pinned.computeIfAbsent(entry.location(), unused -> new HashMap<>())
                        .computeIfAbsent(entry.lanceBranch(), unused -> new HashSet<>()).add(entry.version());
                if (state.current() && entry.lanceBranch().equals(ownRef)) {
                    floors.computeIfAbsent(entry.location(), unused -> new HashMap<>())
                            .merge(entry.lanceBranch(), entry.version(), Math::min);
                }
            }
        }
        Map<String, Map<Optional<String>, VersionRetention>> out = new TreeMap<>();
        pinned.forEach((location, refs) -> {
            Map<Optional<String>, VersionRetention> rules = new HashMap<>();
            refs.forEach((ref, versions) -> rules.put(ref, VersionRetention.of(versions,
                    floors.getOrDefault(location, Map.of()).getOrDefault(ref, Long.MAX_VALUE))));
            out.put(location, rules);
        });
        return out;
    }

    /**
     * {@code __manifest}, per Lance ref (graph branch): exactly the manifest versions the kept states were read at.
     * Versions between them (older commits, and the publisher's compactions of {@code __manifest}) go; refs no
     * kept state names (an internal ref such as the schema-apply sentinel) keep everything.
     */
    static Map<Optional<String>, VersionRetention> manifest(List<KeptState> kept) {
        Map<Optional<String>, Set<Long>> versions = new HashMap<>();
        for (KeptState state : kept) {
            versions.computeIfAbsent(GraphBranches.lanceRef(state.state().branch()), unused -> new HashSet<>())
                    .add(state.state().manifestVersion());
        }
        Map<Optional<String>, VersionRetention> out = new HashMap<>();
        versions.forEach((ref, refVersions) -> out.put(ref, VersionRetention.of(refVersions, Long.MAX_VALUE)));
        return out;
    }

    /** The recovery audit log: only its latest version (every row ever appended is in it; nothing reads older ones). */
    static Map<Optional<String>, VersionRetention> auditLog() {
        return Map.of(Optional.empty(), VersionRetention.of(Set.of(), Long.MAX_VALUE));
    }
}
