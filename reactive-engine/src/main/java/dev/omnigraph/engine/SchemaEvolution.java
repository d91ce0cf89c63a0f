package dev.omnigraph.engine;

import dev.omnigraph.engine.evolve.SchemaApplier;
import dev.omnigraph.engine.evolve.SchemaApplyRecovery;
import dev.omnigraph.engine.gate.Gates;
import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.engine.schema.SchemaFiles;
import dev.omnigraph.engine.write.IdempotencySettings;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.engine.write.WriteLimits;
import dev.omnigraph.recovery.SidecarStore;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.ManifestBatchPublisher;
import dev.omnigraph.storage.manifest.ManifestStore;
import reactor.core.publisher.Mono;

/** Wiring of the schema applier and its open-time recovery into the facade. */
final class SchemaEvolution {
    private SchemaEvolution() {
    }

    static SchemaApplier applier(WriteContext ctx, ObjectStore files, SchemaFiles.Accepted accepted) {
        return new SchemaApplier(ctx, files, accepted);
    }

    /**
     * A contract that disagrees with the manifest while schema-apply staging files exist is an interrupted apply
     * (a read-only open does not recover): {@code recovery_required} instead of a storage fault.
     */
    static <T> Mono<T> explainInterrupted(ObjectStore files, StorageFault mismatch) {
        return files.exists(SchemaFiles.SOURCE + ".staging").zipWith(files.exists(SchemaFiles.STATE + ".staging"),
                (source, state) -> source || state).flatMap(staged -> Mono.error(!staged ? mismatch
                : new dev.omnigraph.storage.error.RecoveryRequired("schema_apply", "a schema apply was interrupted "
                        + "after its commit; open the graph read-write (any write command, or a server start) to finish it",
                        mismatch)));
    }

    /** Before a read-write open reads the contract: any interrupted apply resolved, under the exclusive schema gate. */
    static Mono<Void> recover(StorageServices services, String root, ObjectStore files, ManifestStore manifest,
                              dev.omnigraph.storage.WriterFence fence) {
        Failpoints failpoints = Failpoints.fromEnvironment();
        Gates gates = Gates.forRoot(root);
        // The contract is not known yet: recovery needs only storage, manifest, sidecars and gates.
        WriteContext ctx = new WriteContext(root, null, "", "", services.tables(), manifest,
                new ManifestBatchPublisher(manifest, fence), new SidecarStore(files, failpoints), gates, failpoints,
                WriteLimits.DEFAULT, IdempotencySettings.fromEnvironment());
        return Mono.usingWhen(gates.exclusiveSchema(), permit -> new SchemaApplyRecovery(ctx, files).recoverAll(),
                Permit::releaseAsync, (permit, error) -> permit.releaseAsync(), Permit::releaseAsync);
    }
}
