package dev.omnigraph.storage.nativelib;

import java.io.IOException;

/** The library's bytes in the jar do not match the jar's own CRC-32 and size: a broken package, not a cache problem. */
public class CorruptLibraryException extends IOException {
    public CorruptLibraryException(String message) {
        super(message);
    }
}
