package dev.omnigraph.engine;

import dev.omnigraph.engine.evolve.SchemaApplyResult;
import dev.omnigraph.engine.evolve.SchemaPlan;
import dev.omnigraph.engine.schema.Catalog;
import java.util.Objects;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * The schema family of a handle ({@link Omnigraph#schema()}): the accepted schema, and planning and applying a new
 * one. After an apply, this handle reads, writes and compiles queries against the new schema.
 */
public final class SchemaOperations {
    private final Omnigraph graph;
    private final GraphWrites writes;

    SchemaOperations(Omnigraph graph, GraphWrites writes) {
        this.graph = graph;
        this.writes = writes;
    }

    /** The accepted {@code .pg} source of the graph's schema, as this handle knows it. */
    public String source() {
        return graph.acceptedSchema().source();
    }

    /** The compiled schema (types, properties, keys), as this handle knows it. */
    public Catalog catalog() {
        return graph.acceptedSchema().catalog();
    }

    /** The plan from the accepted schema to {@code source}, against main's current data; changes nothing. */
    public Mono<SchemaPlan> plan(String source) {
        return writes.planSchema(source);
    }

    /**
     * Applies the request's schema as one exact, recoverable write; a plan that loses data is refused unless the
     * request allows it.
     */
    public Mono<SchemaApplyResult> apply(Apply request) {
        return graph.telemetry().observe("omnigraph.schema.apply", "apply",
                writes.applySchema(request.source(), request.allowDataLoss(), request.actor()));
    }

    /** A schema to apply: its {@code .pg} source, whether it may drop data, and the actor recorded on the commit. */
    public record Apply(String source, boolean allowDataLoss, Optional<String> actor) {
        /** Checks every part is present. */
        public Apply {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(actor, "actor");
        }

        /** Apply {@code source}, refusing data loss, with no actor. */
        public static Apply of(String source) {
            return new Apply(source, false, Optional.empty());
        }

        /** The same apply, allowing steps that drop data (a removed type or property). */
        public Apply allowingDataLoss() {
            return new Apply(source, true, actor);
        }

        /** The same apply, recording {@code actorId} on the commit. */
        public Apply actor(String actorId) {
            return new Apply(source, allowDataLoss, Optional.of(actorId));
        }
    }
}
