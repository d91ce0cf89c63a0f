package dev.omnigraph.engine.write;

import dev.omnigraph.engine.observe.EngineTelemetry;
import dev.omnigraph.engine.gate.Gates;
import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.recovery.SidecarStore;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.manifest.ManifestBatchPublisher;
import dev.omnigraph.storage.manifest.ManifestStore;
import dev.omnigraph.storage.manifest.TableEntry;

/** Everything a writer of one graph handle needs, passed down so writers never reach back into the facade. */
public record WriteContext(String root, Catalog catalog, String schemaIrHash, String schemaIdentityDomain,
                           TableStorage tables, ManifestStore manifest, ManifestBatchPublisher publisher,
                           SidecarStore sidecars, Gates gates, Failpoints failpoints, WriteLimits limits,
                           IdempotencySettings idempotency, EngineTelemetry telemetry) {

    /** A context that records nothing (no meter or observation registry). */
    public WriteContext(String root, Catalog catalog, String schemaIrHash, String schemaIdentityDomain,
                        TableStorage tables, ManifestStore manifest, ManifestBatchPublisher publisher,
                        SidecarStore sidecars, Gates gates, Failpoints failpoints, WriteLimits limits,
                        IdempotencySettings idempotency) {
        this(root, catalog, schemaIrHash, schemaIdentityDomain, tables, manifest, publisher, sidecars, gates, failpoints,
                limits, idempotency, EngineTelemetry.NONE);
    }

    /** The idempotency index of this root (process-wide, like the gates). */
    public IdempotencyIndex idempotencyIndex() {
        return IdempotencyIndex.forRoot(root);
    }

    /** The Lance ref a manifest entry is pinned on. */
    public TableRef ref(TableEntry entry) {
        return new TableRef(root + "/" + entry.location(), entry.lanceBranch());
    }
}
