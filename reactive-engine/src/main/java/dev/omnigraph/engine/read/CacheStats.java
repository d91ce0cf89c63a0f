package dev.omnigraph.engine.read;

/** What a read cache of table versions reports (for meters): its entries and their heap, its cap and its lookups. */
public interface CacheStats {
    int entries();

    long bytes();

    long capBytes();

    long hits();

    long misses();

    long evictions();
}
