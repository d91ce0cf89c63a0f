package dev.omnigraph.engine.query;

import dev.omnigraph.engine.schema.PropertyType;

/**
 * A declared query parameter {@code $name: T} or {@code $name: T?}. {@code type} is a {@link PropertyType.Scalar},
 * {@link PropertyType.ListOf} or {@link PropertyType.VectorOf} (never an enum: parameters have no enum types).
 * {@code name} is without the {@code $}.
 */
public record ParamDecl(String name, PropertyType type, boolean optional, Ast.Pos pos) {

    /** As written in the declaration, e.g. {@code I64?} or {@code [String]}. */
    public String spelling() {
        return type.spelling() + (optional ? "?" : "");
    }
}
