package dev.omnigraph.storage.error;

/**
 * A byte range of a blob that starts at or past its end (HTTP answers 416 with {@code Content-Range: bytes *}/size).
 * Nothing was read but the blob's size.
 */
public final class BlobRangeNotSatisfiable extends OmnigraphException {
    private final long size;

    public BlobRangeNotSatisfiable(long size, String message) {
        super(ErrorCode.BAD_REQUEST, message, null);
        this.size = size;
    }

    /** The blob's size in bytes. */
    public long size() {
        return size;
    }
}
