package dev.omnigraph.engine;

import dev.omnigraph.storage.LanceTableStorage;
import dev.omnigraph.storage.LocalObjectStore;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.StorageScheduler;
import dev.omnigraph.storage.TableStorage;
import java.nio.file.Path;

/**
 * The storage plumbing graphs share in one process: the bounded storage scheduler and the Lance table seam.
 * {@link #shared()} is a lazily created process-wide instance; embedders and tests may build their own and
 * close it when every graph using it is closed.
 */
public record StorageServices(StorageScheduler scheduler, TableStorage tables) implements AutoCloseable {

    private static final class Shared {
        static final StorageServices INSTANCE = create();
    }

    public static StorageServices create() {
        StorageScheduler scheduler = StorageScheduler.create();
        return new StorageServices(scheduler, new LanceTableStorage(scheduler));
    }

    /** One instance per JVM, never closed (its threads are daemons and idle threads expire). */
    public static StorageServices shared() {
        return Shared.INSTANCE;
    }

    public ObjectStore objectStore(Path root) {
        return new LocalObjectStore(root, scheduler);
    }

    @Override
    public void close() {
        tables.close();
        scheduler.close();
    }
}
