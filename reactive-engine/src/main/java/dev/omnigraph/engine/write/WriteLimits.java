package dev.omnigraph.engine.write;

/**
 * Per-commit input limits, checked before any effect. Insert/upsert per table: at most {@code maxEntitiesPerTable}
 * entities; every staged table (overwrite included): at most {@code maxArrowBytesPerTable} of estimated Arrow data.
 * A merge's row delta is not refused at those bounds but committed as a chain of chunks, each within both
 * ({@link ChunkChain}), at most {@code maxChunksPerTable} per table. A merge holds the rows it will write in memory
 * until they are staged, so their estimated Arrow bytes, over every table it writes, are capped by
 * {@code maxMergeHeldBytes} (by default an eighth of the heap).
 */
public record WriteLimits(int maxEntitiesPerTable, long maxArrowBytesPerTable, int maxChunksPerTable,
                          long maxMergeHeldBytes) {
    public static final int DEFAULT_MAX_CHUNKS = 1_024;
    /** Rows held as Java maps take several times their Arrow estimate, so an eighth of the heap leaves room. */
    public static final long DEFAULT_MERGE_HELD_BYTES = Runtime.getRuntime().maxMemory() / 8;
    public static final WriteLimits DEFAULT = new WriteLimits(8_192, 32L * 1024 * 1024, DEFAULT_MAX_CHUNKS);

    public WriteLimits {
        if (maxEntitiesPerTable < 1 || maxArrowBytesPerTable < 1 || maxChunksPerTable < 1 || maxMergeHeldBytes < 1) {
            throw new IllegalArgumentException("write limits must be positive");
        }
    }

    /** The per-commit and chunk bounds with the default memory a merge may hold. */
    public WriteLimits(int maxEntitiesPerTable, long maxArrowBytesPerTable, int maxChunksPerTable) {
        this(maxEntitiesPerTable, maxArrowBytesPerTable, maxChunksPerTable, DEFAULT_MERGE_HELD_BYTES);
    }

    /** The per-commit bounds with the default chunk count. */
    public WriteLimits(int maxEntitiesPerTable, long maxArrowBytesPerTable) {
        this(maxEntitiesPerTable, maxArrowBytesPerTable, DEFAULT_MAX_CHUNKS);
    }
}
