package dev.omnigraph.engine.write;

import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.IndexSpec;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A table effect committed as a chain of exact transactions, declared in the sidecar ({@link Sidecar.Chain}) before
 * the first one commits, each carrying its pre-minted mark. Two things make a chain: a merge's row delta too large
 * for one transaction (its data chunks), and a write that adds rows to a table lacking an index its schema requires
 * (one trailing CreateIndex transaction building those indexes on the version the data landed at, so a load leaves
 * nothing for {@code index ensure} to do, as the reference's load does). Data chunks come from a row delta
 * split so that each chunk holds at most {@link WriteLimits#maxEntitiesPerTable} rows and deleted ids together and at most
 * {@link WriteLimits#maxArrowBytesPerTable} of estimated Arrow data; at most {@link WriteLimits#maxChunksPerTable}
 * chunks (beyond, a 413 before anything is staged). The ids of the chunks are disjoint, so chunk {@code i} staged on
 * the version chunk {@code i - 1} produced finds exactly the rows it replaces. The chain is declared in the sidecar
 * ({@link Sidecar.Chain}) before the first chunk commits; every chunk's transaction carries its pre-minted mark.
 */
record ChunkChain(String id, List<TableChange> chunks, List<IndexSpec> indexes) {
    ChunkChain {
        chunks = List.copyOf(chunks);
        indexes = List.copyOf(indexes);
    }

    /** The chain of {@code change}, or empty when it fits in one transaction (or is not a merge's change). */
    static Optional<ChunkChain> of(TableChange change, WriteLimits limits) {
        return of(change, limits, List.of());
    }

    /**
     * The chain of {@code change} followed by a CreateIndex transaction building {@code indexes} (none: no such
     * transaction), or empty when that is one transaction only.
     */
    static Optional<ChunkChain> of(TableChange change, WriteLimits limits, List<IndexSpec> indexes) {
        List<TableChange> chunks = change.chunkable() ? split(change, limits) : List.of(change);
        return chunks.size() + (indexes.isEmpty() ? 0 : 1) < 2 ? Optional.empty()
                : Optional.of(new ChunkChain(Ulid.next(), chunks, indexes));
    }

    /** How many transactions the chain commits: its data chunks, then the index build if any. */
    int length() {
        return chunks.size() + (indexes.isEmpty() ? 0 : 1);
    }

    /** True for the trailing CreateIndex transaction (1-based {@code i}). */
    boolean isIndexChunk(int i) {
        return i > chunks.size();
    }

    /** The chunks of a row delta, in order: rows first, then deleted ids; refused past the chunk count. */
    static List<TableChange> split(TableChange change, WriteLimits limits) {
        List<TableChange> chunks = new ArrayList<>();
        List<Map<String, Object>> rows = new ArrayList<>();
        long bytes = 0;
        for (Map<String, Object> row : change.rows()) {
            long size = ChangeEstimates.arrowBytes(List.of(row));
            if (size > limits.maxArrowBytesPerTable()) {
                throw new ResourceLimitExceeded("estimated Arrow bytes of one row written to " + change.tableKey(),
                        limits.maxArrowBytesPerTable(), size, "store large values outside the graph");
            }
            if (rows.size() == limits.maxEntitiesPerTable() || bytes + size > limits.maxArrowBytesPerTable()) {
                add(chunks, change, rows, List.of(), limits);
                rows = new ArrayList<>();
                bytes = 0;
            }
            rows.add(row);
            bytes += size;
        }
        List<String> deletes = change.deleteIds();
        int from = 0;
        if (!rows.isEmpty()) { // the last rows' chunk takes deletes up to the entity bound
            from = Math.min(deletes.size(), limits.maxEntitiesPerTable() - rows.size());
            add(chunks, change, rows, deletes.subList(0, from), limits);
        }
        for (; from < deletes.size(); from += limits.maxEntitiesPerTable()) {
            add(chunks, change, List.of(), deletes.subList(from, Math.min(deletes.size(), from + limits.maxEntitiesPerTable())), limits);
        }
        return chunks.isEmpty() ? List.of(change) : List.copyOf(chunks);
    }

    private static void add(List<TableChange> chunks, TableChange change, List<Map<String, Object>> rows,
                            List<String> deletes, WriteLimits limits) {
        if (chunks.size() == limits.maxChunksPerTable()) {
            long entities = change.rows().size() + (long) change.deleteIds().size();
            throw new ResourceLimitExceeded("chunks a merge commits to " + change.tableKey() + " (" + entities
                    + " entities)", limits.maxChunksPerTable(), chunks.size() + 1L,
                    "merge smaller branches (merge more often)");
        }
        chunks.add(new TableChange(change.pin(), change.kind(), rows, deletes));
    }

    /** What the sidecar declares of this chain. */
    Sidecar.Chain declared() {
        return new Sidecar.Chain(id, length());
    }

    /** Chunk {@code i} (1-based) on {@code pin}, the table's pin as the effect writes it (a fork's, say). */
    TableChange chunk(int i, dev.omnigraph.storage.manifest.TableEntry pin) {
        TableChange chunk = chunks.get(i - 1);
        return new TableChange(pin, chunk.kind(), chunk.rows(), chunk.deleteIds());
    }

    /** The transaction properties of chunk {@code i}: the writer's, plus its mark. */
    Map<String, String> properties(int i, Map<String, String> writer) {
        java.util.HashMap<String, String> properties = new java.util.HashMap<>(writer);
        properties.put(Sidecar.Chain.PROPERTY, declared().mark(i));
        return Map.copyOf(properties);
    }
}
