package dev.omnigraph.engine.evolve;

import dev.omnigraph.storage.manifest.GraphCommit;
import java.util.List;
import java.util.Optional;

/** What {@code schema apply} did: the plan's steps and the commit it published (empty: a no-op, nothing changed). */
public record SchemaApplyResult(List<PlanStep> steps, Optional<GraphCommit> commit) {
    public SchemaApplyResult {
        steps = List.copyOf(steps);
    }

    public boolean applied() {
        return commit.isPresent();
    }
}
