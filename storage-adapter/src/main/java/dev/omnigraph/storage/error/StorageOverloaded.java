package dev.omnigraph.storage.error;

/** The storage scheduler's queue is full; the call was not started. Safe to retry later. */
public final class StorageOverloaded extends OmnigraphException {
    public StorageOverloaded(String message, Throwable cause) {
        super(ErrorCode.STORAGE_OVERLOADED, message, cause);
    }
}
