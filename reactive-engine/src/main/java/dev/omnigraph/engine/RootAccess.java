package dev.omnigraph.engine;

import dev.omnigraph.storage.LanceStorageOptions;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.lease.LeaseSettings;
import dev.omnigraph.storage.lease.WriterTenure;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.storage.root.S3ObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * What opening or creating a graph root needs before any graph file is read, per kind of root. A local root is
 * canonicalised (absolute, symlinks resolved: one key per root). An S3 root registers its Lance storage options
 * and, before anything may write, proves that the endpoint honours conditional writes. Holding the root for
 * writing is the {@link WriterTenure}'s job ({@link #tenure}), not this class's.
 */
final class RootAccess {
    /** A prepared root: its canonical form, and whether init created its directory. */
    record Prepared(GraphRoot root, boolean created) {
    }

    private RootAccess() {
    }

    /** For init: creates a local directory, or checks an S3 endpoint. */
    static Mono<Prepared> forInit(StorageServices services, GraphRoot root) {
        if (root instanceof GraphRoot.S3 s3) {
            return prepareS3(services, s3, true);
        }
        GraphRoot.Local local = (GraphRoot.Local) root;
        return services.scheduler().call(() -> {
            boolean existed = Files.isDirectory(local.directory());
            Files.createDirectories(local.directory());
            return new Prepared(new GraphRoot.Local(canonical(local.directory())), !existed);
        });
    }

    /** For open: a local root must exist; a read-write open of an S3 root checks its endpoint first. */
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
            return new Prepared(new GraphRoot.Local(canonical(dir)), false);
        });
    }

    /**
     * Takes the writer tenure of a prepared root: the OS lock of a local directory (unless {@code lease} asks for
     * the lease object), the lease object in {@code files} otherwise (an OS lock means nothing on S3).
     */
    static Mono<WriterTenure> tenure(StorageServices services, GraphRoot root, ObjectStore files, LeaseSettings lease) {
        Optional<Path> local = root instanceof GraphRoot.Local dir ? Optional.of(dir.directory()) : Optional.empty();
        return WriterTenure.acquire(files, local, lease, services.scheduler());
    }

    private static Mono<Prepared> prepareS3(StorageServices services, GraphRoot.S3 root, boolean writes) {
        // Resolving credentials may block (profile files, instance metadata): on a storage thread.
        Mono<Void> registered = services.scheduler().run(() -> LanceStorageOptions.register(root.uri(), root.lanceOptionsSource()));
        Mono<Void> checked = writes ? new S3ObjectStore(root, services.scheduler()).requireConditionalWrites() : Mono.empty();
        return registered.then(checked).thenReturn(new Prepared(root, false));
    }

    private static Path canonical(Path root) throws java.io.IOException {
        return root.toAbsolutePath().normalize().toRealPath();
    }
}
