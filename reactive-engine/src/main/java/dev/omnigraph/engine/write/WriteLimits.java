package dev.omnigraph.engine.write;

/**
 * Per-commit input limits, checked before any effect. Insert/upsert per table: at most {@code maxEntitiesPerTable}
 * entities; every staged table (overwrite included): at most {@code maxArrowBytesPerTable} of estimated Arrow data.
 */
public record WriteLimits(int maxEntitiesPerTable, long maxArrowBytesPerTable) {
    public static final WriteLimits DEFAULT = new WriteLimits(8_192, 32L * 1024 * 1024);

    public WriteLimits {
        if (maxEntitiesPerTable < 1 || maxArrowBytesPerTable < 1) {
            throw new IllegalArgumentException("write limits must be positive");
        }
    }
}
