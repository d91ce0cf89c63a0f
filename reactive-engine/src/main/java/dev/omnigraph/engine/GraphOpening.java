package dev.omnigraph.engine;

import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.SchemaCompiler;
import dev.omnigraph.engine.schema.SchemaFiles;
import dev.omnigraph.engine.write.LoadConcurrency;
import dev.omnigraph.engine.schema.SchemaIr;
import dev.omnigraph.engine.write.RecoveryCoordinator;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.lease.LeaseSettings;
import dev.omnigraph.storage.lease.WriterTenure;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.ManifestFence;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.ManifestStore;
import dev.omnigraph.storage.manifest.TableEntry;
import dev.omnigraph.storage.root.GraphRoot;
import java.util.HashSet;
import java.util.Set;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Mono;

/**
 * How an {@link Omnigraph} handle comes to be: init of a new graph, open of an existing one (writer tenure,
 * manifest fence, interrupted schema apply, registration check, recovery sweep), and a server's follower open.
 */
final class GraphOpening {
    private GraphOpening() {
    }

    static Mono<Omnigraph> init(StorageServices services, GraphRoot root, String schemaSource, Failpoints failpoints,
                                LeaseSettings lease) {
        return Mono.defer(() -> {
            LoadConcurrency.fromEnvironment(); // a bad setting fails here, typed, not the first write
            // Compile before any I/O: a bad schema changes nothing on disk.
            SchemaFiles.Accepted accepted = SchemaFiles.Accepted.compile(schemaSource,
                    SchemaIr.initial(SchemaCompiler.compile(schemaSource), Ulid.next()));
            return RootAccess.forInit(services, root).flatMap(made -> {
                GraphRoot canonical = made.root();
                ObjectStore files = services.objectStore(canonical);
                ManifestStore manifest = new ManifestStore(canonical.uri(), services.tables());
                // The writer tenure is taken once the graph exists: a failed init leaves no lock file behind.
                return new GraphInit(services, canonical, made.created(), accepted, failpoints, files, manifest).run()
                        .then(RootAccess.tenure(services, canonical, files, lease))
                        .flatMap(held -> ManifestFence.establish(manifest, held)
                                .onErrorResume(failure -> held.release().then(Mono.error(failure)))
                                .thenReturn(new Omnigraph(canonical, OpenMode.READ_WRITE, services, files, manifest,
                                        accepted, held).labelSchema(0)));
            });
        });
    }

    /** With {@code follow}, a refused writer tenure opens a read-only follower instead of failing. */
    static Mono<Omnigraph> open(StorageServices services, GraphRoot root, OpenMode mode, LeaseSettings lease,
                                boolean follow, UnaryOperator<Omnigraph> configure) {
        // A bad OMNIGRAPH_LOAD_CONCURRENCY fails the open before any I/O, typed, not the first write.
        return Mono.fromRunnable(LoadConcurrency::fromEnvironment)
                .then(Mono.defer(() -> RootAccess.forOpen(services, root, mode))).flatMap(prepared -> {
            GraphRoot canonical = prepared.root();
            ObjectStore files = services.objectStore(canonical);
            if (mode != OpenMode.READ_WRITE) {
                return open(services, canonical, mode, files, null, configure);
            }
            Mono<WriterTenure> tenure = RootAccess.tenure(services, canonical, files, lease);
            if (!follow) {
                return tenure.flatMap(held -> open(services, canonical, mode, files, held, configure));
            }
            // Only a refusal of the tenure itself makes a follower: every other conflict is the open's own.
            return tenure.<Object>map(held -> held)
                    .onErrorResume(Conflict.class, refused -> Mono.just(refused))
                    .flatMap(taken -> taken instanceof WriterTenure held ? open(services, canonical, mode, files, held, configure)
                            : open(services, canonical, OpenMode.READ_ONLY, files, null, configure)
                                    .doOnNext(graph -> graph.followWriterElsewhere(((Conflict) taken).getMessage())));
        });
    }

    /**
     * The open itself, once a read-write open holds the root ({@code tenure}; null when read-only). The handle is
     * {@code configure}d before its recovery sweep, so the sweep's recoveries reach the handle's meters and logs.
     */
    private static Mono<Omnigraph> open(StorageServices services, GraphRoot canonical, OpenMode mode, ObjectStore files,
                                        WriterTenure tenure, UnaryOperator<Omnigraph> configure) {
        ManifestStore manifest = new ManifestStore(canonical.uri(), services.tables());
        // A read-write open first finishes or undoes an interrupted schema apply: until then the contract
        // files and the manifest may disagree.
        Mono<Void> schemaRecovery = mode == OpenMode.READ_WRITE
                ? manifest.load(GraphBranches.MAIN).onErrorResume(NotFound.class, missing -> Mono.empty())
                        .flatMap(found -> SchemaEvolution.recover(services, canonical.uri(), files, manifest, tenure))
                : Mono.empty();
        // A lease holder fences the manifest before anything publishes or rolls back (the sweep included).
        Mono<Void> fenced = tenure == null ? Mono.empty() : ManifestFence.establish(manifest, tenure);
        Mono<Omnigraph> opened = fenced.then(schemaRecovery).then(manifest.load(GraphBranches.MAIN))
                .onErrorResume(NotFound.class, missing -> explainMissingManifest(files, canonical, missing))
                .flatMap(state -> SchemaFiles.read(files).map(accepted -> {
                    requireRegistrationsMatch(canonical, accepted.catalog(), state);
                    return configure.apply(new Omnigraph(canonical, mode, services, files, manifest, accepted, tenure)
                            .labelSchema(state.manifestVersion()));
                }).onErrorResume(StorageFault.class, mismatch -> SchemaEvolution.explainInterrupted(files, mismatch)))
                // A read-write open resolves every pending sidecar before anything else may write.
                .flatMap(graph -> mode == OpenMode.READ_WRITE
                        ? new RecoveryCoordinator(graph.writeContext()).sweep().thenReturn(graph)
                        : Mono.just(graph));
        if (tenure == null) {
            return opened;
        }
        // A failed or abandoned open gives its share of the tenure back.
        return opened.onErrorResume(failure -> tenure.release().then(Mono.error(failure)))
                .doOnCancel(() -> tenure.release().subscribe());
    }

    /** A root without a manifest is either not a graph or the remains of an interrupted init. */
    private static Mono<ManifestState> explainMissingManifest(ObjectStore files, GraphRoot root, NotFound missing) {
        return Mono.zip(files.exists(GraphInit.CLAIM), files.exists(SchemaFiles.SOURCE)).flatMap(found -> {
            if (found.getT1() || found.getT2()) {
                return Mono.error(new Conflict("the graph at " + root + " is half-initialised (an init was interrupted"
                        + " before its manifest was written); remove the directory and run init again"));
            }
            return Mono.error(new NotFound("graph", root.uri(), "no graph at " + root + "; run init first"));
        });
    }

    private static void requireRegistrationsMatch(GraphRoot root, Catalog catalog, ManifestState state) {
        Set<String> registered = new HashSet<>();
        for (TableEntry entry : state.liveTables()) {
            registered.add(entry.tableKey());
            CatalogTable table = catalog.table(entry.tableKey()).orElseThrow(() -> new StorageFault("the manifest at "
                    + root + " registers " + entry.tableKey() + ", which the accepted schema does not declare", null));
            if (table.typeId() != entry.stableTableId() || table.incarnationId() != entry.incarnationId()
                    || !table.datasetPath().equals(entry.location())) {
                throw new StorageFault("the manifest at " + root + " binds " + entry.tableKey() + " to "
                        + entry.location() + " but the schema identity gives " + table.datasetPath(), null);
            }
        }
        for (CatalogTable table : catalog.tables()) {
            if (!registered.contains(table.tableKey())) {
                throw new StorageFault("the schema at " + root + " declares " + table.tableKey()
                        + " but the manifest has no table for it", null);
            }
        }
    }
}
