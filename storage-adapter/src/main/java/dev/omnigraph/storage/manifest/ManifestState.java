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
 * publish fence) and the accepted schema identity it records ({@code schemaIdentity}: the schema IR hash the data
 * of this state was published under; empty on a root stamped before it was recorded). Reads bind to exactly one
 * such state.
 *
 * <p>{@code rowAddresses} maps the object id of every row a publish may rewrite in place (stamp, table and head
 * rows: every row but the append-only commits) to its row address at exactly {@code manifest}, so a publish
 * planned on this state deletes them without scanning; empty when unknown (a publish then finds them by key).
 *
 * <p>{@code tail} is the newest {@code __manifest} fragment as the publish that wrote it knows it (every row, as
 * written, with its address at exactly {@code manifest}), so the next publish can write those rows again beside its
 * own and remove the fragment whole ({@link Tail}); {@link Tail#NONE} after a load.
 */
public record ManifestState(String branch, TableSnapshot manifest, SortedMap<String, TableEntry> tables,
                            Map<String, String> heads, long writerEpoch, Map<String, Long> rowAddresses, Tail tail,
                            Optional<String> schemaIdentity) {

    public ManifestState {
        rowAddresses = Map.copyOf(rowAddresses);
        java.util.Objects.requireNonNull(tail, "tail");
        java.util.Objects.requireNonNull(schemaIdentity, "schemaIdentity");
    }

    /** A state with no recorded schema identity. */
    public ManifestState(String branch, TableSnapshot manifest, SortedMap<String, TableEntry> tables,
                         Map<String, String> heads, long writerEpoch, Map<String, Long> rowAddresses, Tail tail) {
        this(branch, manifest, tables, heads, writerEpoch, rowAddresses, tail, Optional.empty());
    }

    /** A state with no known tail (as a load reads it). */
    public ManifestState(String branch, TableSnapshot manifest, SortedMap<String, TableEntry> tables,
                         Map<String, String> heads, long writerEpoch, Map<String, Long> rowAddresses) {
        this(branch, manifest, tables, heads, writerEpoch, rowAddresses, Tail.NONE);
    }

    /** A state whose row addresses are unknown. */
    public ManifestState(String branch, TableSnapshot manifest, SortedMap<String, TableEntry> tables,
                         Map<String, String> heads, long writerEpoch) {
        this(branch, manifest, tables, heads, writerEpoch, Map.of());
    }

    /**
     * The rows of the newest manifest fragment, in the order they were written, each with its row address (object
     * id → address). The publisher keeps it for the fragment it added, so the next publish on this exact state writes
     * the rows again in its own fragment and deletes all of them, which removes the old fragment whole: the commit
     * rows since the last fold then live in one small fragment (the tail) instead of one per publish.
     */
    public record Tail(List<Map<String, Object>> rows, Map<String, Long> addresses) {
        public static final Tail NONE = new Tail(List.of(), Map.of());

        public Tail {
            rows = List.copyOf(rows);
            addresses = Map.copyOf(addresses);
        }

        /** How many commit rows the tail holds. */
        public long commits() {
            return rows.stream().filter(row -> ManifestSchema.TYPE_COMMIT.equals(row.get(ManifestSchema.OBJECT_TYPE)))
                    .count();
        }
    }

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
     * {@code commitId}, stamped with {@code epoch} and {@code schema}) leaves it at manifest version {@code landed}:
     * what a fresh load of {@code landed} returns, with {@code nextAddresses} (empty when unknown) as its row addresses.
     */
    ManifestState afterPublish(TableSnapshot landed, List<TableEntry> updates, String commitId, long epoch,
                               Optional<String> schema, Map<String, Long> nextAddresses, Tail nextTail) {
        TreeMap<String, TableEntry> nextTables = new TreeMap<>(tables);
        // Table rows are keyed by object id, so an update may carry a row under a new key (a rename): the old key goes.
        updates.forEach(update -> {
            nextTables.values().removeIf(entry -> entry.objectId().equals(update.objectId()));
            nextTables.put(update.tableKey(), update);
        });
        Map<String, String> nextHeads = new HashMap<>(heads);
        nextHeads.put(branch, commitId);
        return new ManifestState(branch, landed, Collections.unmodifiableSortedMap(nextTables), Map.copyOf(nextHeads),
                epoch, nextAddresses, nextTail, schema);
    }
}
