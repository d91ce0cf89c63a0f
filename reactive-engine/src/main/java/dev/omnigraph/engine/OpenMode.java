package dev.omnigraph.engine;

/** How a graph handle may touch its root: read-write runs recovery and may write; read-only writes nothing at all. */
public enum OpenMode {
    READ_WRITE,
    READ_ONLY
}
