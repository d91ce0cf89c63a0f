package dev.omnigraph.engine;

import dev.omnigraph.storage.LanceTableStorage;
import dev.omnigraph.storage.LocalObjectStore;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.StorageScheduler;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.storage.root.S3ObjectStore;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The storage plumbing graphs share in one process: the bounded storage scheduler and the Lance table seam.
 * {@link #shared()} is a lazily created process-wide instance; embedders and tests may build their own and
 * close it when every graph using it is closed. {@code objectStores} wraps every {@link ObjectStore} this
 * instance hands out (identity by default); benchmarks use it to count object-store calls.
 */
public record StorageServices(StorageScheduler scheduler, TableStorage tables, UnaryOperator<ObjectStore> objectStores)
        implements AutoCloseable {

    private static final class Shared {
        static final StorageServices INSTANCE = create();
    }

    public StorageServices {
        Objects.requireNonNull(scheduler, "scheduler");
        Objects.requireNonNull(tables, "tables");
        Objects.requireNonNull(objectStores, "objectStores");
    }

    /** Services whose object stores are not wrapped. */
    public StorageServices(StorageScheduler scheduler, TableStorage tables) {
        this(scheduler, tables, UnaryOperator.identity());
    }

    /** A private instance with its own storage scheduler over Lance; close it after every graph using it. */
    public static StorageServices create() {
        StorageScheduler scheduler = StorageScheduler.create();
        return new StorageServices(scheduler, new LanceTableStorage(scheduler));
    }

    /** One instance per JVM, never closed (its threads are daemons and idle threads expire). */
    public static StorageServices shared() {
        return Shared.INSTANCE;
    }

    /** The same scheduler and tables, with every object store wrapped by {@code decorator}. */
    public StorageServices withObjectStores(UnaryOperator<ObjectStore> decorator) {
        return new StorageServices(scheduler, tables, decorator);
    }

    /** The small-file store of graph root {@code root} (internal: the engine's own plumbing). */
    public ObjectStore objectStore(Path root) {
        return objectStores.apply(new LocalObjectStore(root, scheduler));
    }

    /** The small-file store of {@code root}: its directory, or its S3 prefix. */
    public ObjectStore objectStore(GraphRoot root) {
        return root instanceof GraphRoot.S3 s3 ? objectStores.apply(new S3ObjectStore(s3, scheduler))
                : objectStore(((GraphRoot.Local) root).directory());
    }

    /** Closes the table storage and the scheduler; graphs still using them fail afterwards. */
    @Override
    public void close() {
        tables.close();
        scheduler.close();
    }
}
