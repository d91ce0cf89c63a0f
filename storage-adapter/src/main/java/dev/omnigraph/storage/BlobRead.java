package dev.omnigraph.storage;

/** What {@link TableStorage#readBlob} found for one key: no such row, a NULL blob, a range it cannot serve, or bytes. */
public sealed interface BlobRead {

    /** No row has the key at the snapshot. */
    record NoRow() implements BlobRead {
    }

    /** The row exists and its blob is NULL. */
    record NullBlob() implements BlobRead {
    }

    /** The window refused a blob of {@code size} bytes (an offset past the end); nothing was read. */
    record Unsatisfiable(long size) implements BlobRead {
    }

    /**
     * The bytes at {@code [offset, offset + bytes.length)} of a blob of {@code size} bytes. {@code bytesRead} is what
     * the storage read to answer: the range alone for a blob-encoded column, the whole value for a plain one.
     */
    record Slice(long size, long offset, byte[] bytes, long bytesRead) implements BlobRead {
    }
}
