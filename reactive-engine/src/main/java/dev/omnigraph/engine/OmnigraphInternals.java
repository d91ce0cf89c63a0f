package dev.omnigraph.engine;

import dev.omnigraph.engine.diff.ChangeLimits;
import dev.omnigraph.engine.diff.Changes;
import dev.omnigraph.engine.gate.Gates;
import dev.omnigraph.engine.internal.HandleInternals;
import dev.omnigraph.engine.write.IdempotencyIndex;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.ObjectStore;
import reactor.core.publisher.Flux;

/** The handle's side of {@link HandleInternals}: forwards to the handle's package-private members. */
final class OmnigraphInternals extends HandleInternals {
    private final Omnigraph graph;

    OmnigraphInternals(Omnigraph graph) {
        this.graph = graph;
    }

    @Override
    public Gates gates() {
        return graph.gates();
    }

    @Override
    public IdempotencyIndex idempotencyIndex() {
        return graph.idempotencyIndex();
    }

    @Override
    public Failpoints failpoints() {
        return graph.failpoints();
    }

    @Override
    public ObjectStore objectStore() {
        return graph.objectStore();
    }

    @Override
    public Flux<Sidecar> pendingSidecars() {
        return graph.pendingSidecars();
    }

    @Override
    public void minorCompactionEvery(int commitsPerTable) {
        graph.minorCompactionEvery(commitsPerTable);
    }

    @Override
    public Changes changes(ChangeLimits limits) {
        return graph.changes(limits);
    }
}
