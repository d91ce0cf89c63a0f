package dev.omnigraph.storage.error;

/** An I/O or Lance failure the engine could not classify further. The message names the operation and the path. */
public final class StorageFault extends OmnigraphException {
    public StorageFault(String message, Throwable cause) {
        super(ErrorCode.STORAGE_FAULT, message, cause);
    }
}
