package dev.omnigraph.engine.evolve;

/**
 * One step of a schema plan: what changes ({@code target} is {@code Type} or {@code Type.property}), in words,
 * and what it does to stored data.
 */
public record PlanStep(Kind kind, String target, String detail, Effect effect) {
    public enum Kind {
        ADD_TYPE, RENAME_TYPE, DROP_TYPE, ADD_PROPERTY, RENAME_PROPERTY, DROP_PROPERTY, CHANGE_PROPERTY_TYPE,
        CHANGE_NULLABILITY, ADD_CONSTRAINT, DROP_CONSTRAINT, ADD_INDEX, DROP_INDEX, CHANGE_METADATA
    }

    /** Metadata only; existing rows checked against a new rule; rows rewritten; rows or columns lost. */
    public enum Effect { METADATA, VALIDATES, REWRITES, LOSES_DATA }

    /** {@code kind target: detail [effect]}, as {@code schema plan} prints it. */
    public String render() {
        return kind.name().toLowerCase() + " " + target + ": " + detail + " [" + effect.name().toLowerCase().replace('_', ' ') + "]";
    }
}
