package dev.omnigraph.storage.manifest;

import dev.omnigraph.storage.TableSnapshot;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The graph as one {@code __manifest} version on one branch shows it: every live table's pin, and the head
 * commit of each branch whose head row this manifest carries, and the writer epoch its stamp row carries (the
 * publish fence). Reads bind to exactly one such state.
 */
public record ManifestState(String branch, TableSnapshot manifest, SortedMap<String, TableEntry> tables,
                            Map<String, String> heads, long writerEpoch) {

    public long manifestVersion() {
        return manifest.version();
    }

    /** The head commit of this state's own branch; empty on a branch that has not committed yet. */
    public Optional<String> head() {
        return Optional.ofNullable(heads.get(branch));
    }

    /** The live (not tombstoned) tables, sorted by table key. */
    public List<TableEntry> liveTables() {
        return tables.values().stream().filter(entry -> !entry.tombstone()).toList();
    }

    public Optional<TableEntry> table(String tableKey) {
        return Optional.ofNullable(tables.get(tableKey)).filter(entry -> !entry.tombstone());
    }

    /**
     * This state as the publish that replaced {@code updates}' table rows and this branch's head row (with
     * {@code commitId}, stamped with {@code epoch}) leaves it at manifest version {@code landed}: what a fresh load of
     * {@code landed} returns.
     */
    ManifestState afterPublish(TableSnapshot landed, List<TableEntry> updates, String commitId, long epoch) {
        TreeMap<String, TableEntry> nextTables = new TreeMap<>(tables);
        // Table rows are keyed by object id, so an update may carry a row under a new key (a rename): the old key goes.
        updates.forEach(update -> {
            nextTables.values().removeIf(entry -> entry.objectId().equals(update.objectId()));
            nextTables.put(update.tableKey(), update);
        });
        Map<String, String> nextHeads = new HashMap<>(heads);
        nextHeads.put(branch, commitId);
        return new ManifestState(branch, landed, Collections.unmodifiableSortedMap(nextTables), Map.copyOf(nextHeads),
                epoch);
    }
}
