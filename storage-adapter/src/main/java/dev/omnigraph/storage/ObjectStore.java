package dev.omnigraph.storage;

import java.util.List;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * Small files under one root (sidecars, schema files, claims), and the way version cleanup lists, reads and deletes
 * Lance's files under it (whatever the root's kind). Keys are relative, '/'-separated paths.
 * Every call runs on the storage scheduler. Implementations must make {@link #put} atomic (readers see the old
 * bytes or the new bytes, never a torn file) and durable once the Mono completes, and must never list their own
 * temporary files.
 */
public interface ObjectStore {

    /** Atomically replaces (or creates) {@code key} with {@code bytes}; durable when the Mono completes. */
    Mono<Void> put(String key, byte[] bytes);

    /**
     * Atomically creates {@code key} only if it does not exist; emits false (and writes nothing) when it exists.
     * Callers write bytes unique to the call (an id): a store may recognise its own retried create by them.
     */
    Mono<Boolean> putIfAbsent(String key, byte[] bytes);

    /** The bytes of {@code key}, or empty when it does not exist. */
    Mono<Optional<byte[]>> get(String key);

    /**
     * Keys under {@code prefix} (a directory-like prefix, e.g. {@code __recovery/}), sorted, without temp files;
     * empty only when nothing is there. A prefix that cannot be read fails with a {@code StorageFault}.
     */
    Mono<List<String>> list(String prefix);

    /** A key with its size and last-modified time, as {@link #listObjects} lists it. */
    record StoredObject(String key, long bytes, java.time.Instant modified) {
    }

    /**
     * As {@link #list}, with each key's size and last-modified time (one LIST on an object store; a walk with file
     * attributes on disk). For whoever collects files by age: version cleanup lists a dataset's files this way.
     */
    default Mono<List<StoredObject>> listObjects(String prefix) {
        return Mono.error(new UnsupportedOperationException(getClass().getSimpleName() + " lists no object attributes"));
    }

    /** Deletes {@code key}; emits whether it existed. */
    Mono<Boolean> delete(String key);

    /**
     * As {@link #delete}, for a caller whose correctness does not need the removal to survive a power loss (the
     * object may come back, and the caller's readers treat that as harmless): a store may skip making it durable,
     * and may emit true without finding out whether the key existed (callers do not act on it).
     */
    default Mono<Boolean> deleteLazily(String key) {
        return delete(key);
    }

    /**
     * Whether {@code key} exists. Only absence answers false: any other I/O error (permissions, a file where a
     * directory should be) fails with a {@code StorageFault}, because callers act on "absent".
     */
    Mono<Boolean> exists(String key);

    /** The bytes of a key with the opaque version token a {@link #replaceIf} compares against. */
    record Versioned(byte[] bytes, String version) {
    }

    /**
     * The bytes of {@code key} with its current version token (an ETag on object stores, a content digest on local
     * disk), or empty when it does not exist. Only for keys written with {@link #putIfAbsent} and {@link #replaceIf}.
     */
    default Mono<Optional<Versioned>> getVersioned(String key) {
        return Mono.error(new UnsupportedOperationException(getClass().getSimpleName() + " offers no versioned reads"));
    }

    /**
     * Atomically replaces {@code key} with {@code bytes} only if its version is still {@code expectedVersion} (as
     * {@link #getVersioned} returned it): compare-and-swap on one object, the other half (with {@link #putIfAbsent})
     * of what a writer lease needs. Emits false, writing nothing, when the key changed or is gone. Atomic against
     * other {@code replaceIf} and {@code putIfAbsent} calls on the key, from any process.
     */
    default Mono<Boolean> replaceIf(String key, String expectedVersion, byte[] bytes) {
        return Mono.error(new UnsupportedOperationException(getClass().getSimpleName() + " offers no conditional replace"));
    }

    /** The root this store resolves keys against, for messages and for building dataset URIs. */
    String rootUri();
}
