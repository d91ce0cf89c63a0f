package dev.omnigraph.engine.write;

/**
 * Per-commit input limits, checked before any effect. Insert/upsert per table: at most {@code maxEntitiesPerTable}
 * entities; every staged table (overwrite included): at most {@code maxArrowBytesPerTable} of estimated Arrow data.
 * A merge's row delta is not refused at those bounds but committed as a chain of chunks, each within both
 * ({@link ChunkChain}), at most {@code maxChunksPerTable} per table.
 */
public record WriteLimits(int maxEntitiesPerTable, long maxArrowBytesPerTable, int maxChunksPerTable) {
    public static final int DEFAULT_MAX_CHUNKS = 1_024;
    public static final WriteLimits DEFAULT = new WriteLimits(8_192, 32L * 1024 * 1024, DEFAULT_MAX_CHUNKS);

    public WriteLimits {
        if (maxEntitiesPerTable < 1 || maxArrowBytesPerTable < 1 || maxChunksPerTable < 1) {
            throw new IllegalArgumentException("write limits must be positive");
        }
    }

    /** The per-commit bounds with the default chunk count. */
    public WriteLimits(int maxEntitiesPerTable, long maxArrowBytesPerTable) {
        this(maxEntitiesPerTable, maxArrowBytesPerTable, DEFAULT_MAX_CHUNKS);
    }
}
