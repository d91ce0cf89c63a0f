package dev.omnigraph.storage;

/**
 * How an index catch-up ({@link TableStorage#stageIndexes}) treats the segments an index already has when it adds a
 * delta segment for the fragments they miss.
 */
public enum SegmentMerge {
    /**
     * For writes: the delta takes in the earlier segments no larger than itself, smallest first, and more while the
     * index would pass four segments. A long run of bulk writes then re-indexes each row about log(writes) times.
     */
    TIERED,
    /**
     * For maintenance (index ensure, optimize): a delta over just the missing fragments, or, at four segments, one
     * segment over the whole table. The segments that compaction kept apart stay apart, so an optimize followed by
     * another has nothing left to compact.
     */
    DELTA
}
