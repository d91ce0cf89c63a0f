package dev.omnigraph.engine;

import dev.omnigraph.storage.LanceStorageOptions;
import dev.omnigraph.storage.RootLock;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.storage.root.S3ObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import reactor.core.publisher.Mono;

/**
 * What opening or creating a graph root needs before any graph file is read, per kind of root. A local root is
 * canonicalised (absolute, symlinks resolved: one key per root) and a read-write open takes its {@link RootLock}.
 * An S3 root registers its Lance storage options and, before anything may write, proves that the endpoint honours
 * conditional writes. No process-wide fence exists for S3 roots yet: two processes must not open one read-write.
 */
final class RootAccess {
    /** A prepared root: its canonical form, whether init created its directory, and the writer lock (or null). */
    record Prepared(GraphRoot root, boolean created, RootLock lock) {
    }

    private RootAccess() {
    }

    /** For init: creates a local directory, or checks an S3 endpoint; takes no lock. */
    static Mono<Prepared> forInit(StorageServices services, GraphRoot root) {
        if (root instanceof GraphRoot.S3 s3) {
            return prepareS3(services, s3, true);
        }
        GraphRoot.Local local = (GraphRoot.Local) root;
        return services.scheduler().call(() -> {
            boolean existed = Files.isDirectory(local.directory());
            Files.createDirectories(local.directory());
            return new Prepared(new GraphRoot.Local(canonical(local.directory())), !existed, null);
        });
    }

    /** For open: a local root must exist; a read-write open takes its lock (or checks the S3 endpoint). */
    static Mono<Prepared> forOpen(StorageServices services, GraphRoot root, OpenMode mode) {
        if (root instanceof GraphRoot.S3 s3) {
            return prepareS3(services, s3, mode == OpenMode.READ_WRITE);
        }
        GraphRoot.Local local = (GraphRoot.Local) root;
        return services.scheduler().call(() -> {
            Path dir = local.directory();
            if (!Files.isDirectory(dir)) {
                throw new NotFound("graph", dir.getFileName() == null ? "" : dir.getFileName().toString(),
                        "no graph at " + dir + ": the directory does not exist");
            }
            Path canonical = canonical(dir);
            return new Prepared(new GraphRoot.Local(canonical), false,
                    mode == OpenMode.READ_WRITE ? RootLock.acquire(canonical) : null);
        });
    }

    /** The writer lock to take once init has made the graph (local roots only). */
    static Mono<RootLock> lockAfterInit(StorageServices services, GraphRoot root) {
        return root instanceof GraphRoot.Local local
                ? services.scheduler().call(() -> RootLock.acquire(local.directory()))
                : Mono.empty();
    }

    private static Mono<Prepared> prepareS3(StorageServices services, GraphRoot.S3 root, boolean writes) {
        // Resolving credentials may block (profile files, instance metadata): on a storage thread.
        Mono<Void> registered = services.scheduler().run(() -> LanceStorageOptions.register(root.uri(), root.lanceOptions()));
        Mono<Void> checked = writes ? new S3ObjectStore(root, services.scheduler()).requireConditionalWrites() : Mono.empty();
        return registered.then(checked).thenReturn(new Prepared(root, false, null));
    }

    private static Path canonical(Path root) throws java.io.IOException {
        return root.toAbsolutePath().normalize().toRealPath();
    }
}
