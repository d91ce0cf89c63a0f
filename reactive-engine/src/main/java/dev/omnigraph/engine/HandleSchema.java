package dev.omnigraph.engine;

import dev.omnigraph.engine.schema.SchemaFiles;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.ManifestStore;
import dev.omnigraph.storage.root.GraphRoot;
import reactor.core.publisher.Mono;

/**
 * The accepted schema one {@link Omnigraph} handle reads, writes and compiles queries against, and the main
 * manifest version it is known current at (see {@link LiveSchemas}); replaced when the handle applies a schema
 * change or finds a newer one before a read or write.
 */
final class HandleSchema {
    private final GraphRoot root;
    private final OpenMode mode;
    private final ObjectStore files;
    private final ManifestStore manifest;
    private volatile SchemaFiles.Accepted accepted;
    private volatile long mainVersion;

    HandleSchema(GraphRoot root, OpenMode mode, ObjectStore files, ManifestStore manifest,
                 SchemaFiles.Accepted accepted) {
        this.root = root;
        this.mode = mode;
        this.files = files;
        this.manifest = manifest;
        this.accepted = accepted;
    }

    SchemaFiles.Accepted current() {
        return accepted;
    }

    /** Takes {@code live} as the handle's schema (a schema change it applied); {@link #label} it afterwards. */
    synchronized void replace(SchemaFiles.Accepted live) {
        accepted = live;
    }

    /** Records the schema as current at main manifest version {@code version}; adopts a newer one. */
    void label(long version) {
        LiveSchemas.Labeled mine = new LiveSchemas.Labeled(version, accepted);
        synchronized (this) {
            mainVersion = version;
        }
        adoptIfNewer(LiveSchemas.offer(root.uri(), mine));
    }

    /**
     * Brings the schema up to date before a read or write: a schema another handle of this process applied is
     * taken from {@link LiveSchemas} (no storage call). A read-only handle also compares the contract's state file,
     * since another process may hold the writer lock and apply a schema; a read-write handle holds the lock, so no
     * other process can. A contract caught half-promoted keeps the schema this handle had.
     */
    Mono<Void> refreshed() {
        return Mono.defer(() -> {
            LiveSchemas.newest(root.uri()).ifPresent(this::adoptIfNewer);
            if (mode == OpenMode.READ_WRITE) {
                return Mono.empty();
            }
            SchemaFiles.Accepted mine = accepted;
            return files.get(SchemaFiles.STATE).flatMap(bytes -> bytes.isPresent() && SchemaFiles.describes(bytes.get(), mine)
                    ? Mono.<Void>empty()
                    : manifest.latest(GraphBranches.MAIN).zipWith(SchemaFiles.read(files))
                            .doOnNext(read -> adoptIfNewer(LiveSchemas.offer(root.uri(),
                                    new LiveSchemas.Labeled(read.getT1().version(), read.getT2()))))
                            .onErrorResume(StorageFault.class, halfPromoted -> Mono.empty())
                            .then());
        });
    }

    private synchronized void adoptIfNewer(LiveSchemas.Labeled newest) {
        if (newest.mainVersion() > mainVersion && LiveSchemas.sameGraph(newest, new LiveSchemas.Labeled(mainVersion, accepted))) {
            accepted = newest.accepted();
            mainVersion = newest.mainVersion();
        }
    }
}
