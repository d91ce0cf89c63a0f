package dev.omnigraph.engine;

import dev.omnigraph.engine.cleanup.CleanupOptions;
import dev.omnigraph.engine.cleanup.CleanupReport;
import dev.omnigraph.engine.index.EnsureResult;
import dev.omnigraph.engine.maintain.OptimizeResult;
import dev.omnigraph.engine.maintain.Repair;
import dev.omnigraph.recovery.RecoveryAudit;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.storage.manifest.GraphBranches;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The maintenance family of a handle ({@link Omnigraph#maintenance()}): index upkeep, compaction, version cleanup,
 * drift repair and the recovery audit. Writing operations need a read-write handle.
 */
public final class MaintenanceOperations {
    private final Omnigraph graph;
    private final GraphWrites writes;
    private final GraphUpkeep upkeep;

    MaintenanceOperations(Omnigraph graph, GraphWrites writes, GraphUpkeep upkeep) {
        this.graph = graph;
        this.writes = writes;
        this.upkeep = upkeep;
    }

    /**
     * Builds, on every table of the request's branch, the indexes its schema implies that it lacks (one commit, or
     * none when nothing is missing). On a graph branch, tables it still inherits are forked first.
     */
    public Mono<EnsureResult> ensureIndexes(Target request) {
        return graph.telemetry().observe("omnigraph.maintenance", "ensure_indexes",
                writes.ensureIndexes(request.branch(), request.actor()));
    }

    /**
     * Compacts the request's branch's own tables (main: all; a branch: its forked ones) and brings their indexes up
     * to the schema, as one tracked maintenance write; tables already compact and fully indexed are left alone and
     * tables with uncovered drift are skipped and reported.
     */
    public Mono<OptimizeResult> optimize(Target request) {
        return graph.telemetry().observe("omnigraph.maintenance", "optimize", upkeep.optimize(request.branch(), request.actor()));
    }

    /** Version GC; unconfirmed options only report what would go. Deleting needs a read-write handle. */
    public Mono<CleanupReport> cleanup(CleanupOptions options) {
        return graph.telemetry().observe("omnigraph.maintenance", "cleanup", upkeep.cleanup(options));
    }

    /**
     * Reports tables whose live HEAD differs from their manifest pin with no sidecar covering them, classified from
     * their history; the request says whether to publish the verified (or, forced, every) drift forward. Never
     * rewrites table data.
     */
    public Mono<List<Repair.Drift>> repair(RepairDrift request) {
        return graph.telemetry().observe("omnigraph.maintenance", "repair", upkeep.repair(request.confirm(), request.force()));
    }

    /** The recovery audit log: one record per sidecar recovery ever finished on this graph, oldest first. */
    public Flux<RecoveryRecord> recoveries() {
        return new RecoveryAudit(graph.location().uri(), graph.services().tables()).list();
    }

    /** The branch a maintenance write works on, and the actor recorded on its commit. */
    public record Target(String branch, Optional<String> actor) {
        /** Checks both are present. */
        public Target {
            Objects.requireNonNull(branch, "branch");
            Objects.requireNonNull(actor, "actor");
        }

        /** Main, with no actor. */
        public static Target main() {
            return branch(GraphBranches.MAIN);
        }

        /** Branch {@code name}, with no actor. */
        public static Target branch(String name) {
            return new Target(name, Optional.empty());
        }

        /** The same target, recording {@code actorId} on the commit. */
        public Target actor(String actorId) {
            return new Target(branch, Optional.of(actorId));
        }
    }

    /** What a repair does with the drift it finds: only report, publish the verified drift, or force every drift. */
    public enum RepairDrift {
        /** Report only; changes nothing. */
        REPORT(false, false),
        /** Publish the verified (compaction-only) drift forward. */
        CONFIRM(true, false),
        /** Publish every drift ahead of its pin, verified or not. */
        FORCE(true, true);

        private final boolean confirm;
        private final boolean force;

        RepairDrift(boolean confirm, boolean force) {
            this.confirm = confirm;
            this.force = force;
        }

        /** The mode of the CLI's {@code --confirm} and {@code --force} flags; {@code force} needs {@code confirm}. */
        public static RepairDrift of(boolean confirm, boolean force) {
            if (force && !confirm) {
                throw new dev.omnigraph.storage.error.BadRequest("repair --force needs --confirm");
            }
            return force ? FORCE : confirm ? CONFIRM : REPORT;
        }

        /** Whether drift is published. */
        public boolean confirm() {
            return confirm;
        }

        /** Whether unverified drift is published too. */
        public boolean force() {
            return force;
        }
    }
}
