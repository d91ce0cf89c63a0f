package dev.omnigraph.engine.schema;

import java.util.List;
import java.util.Optional;

/**
 * A property of an interface, node or edge.
 *
 * @param declaredDirectly  written in this type's own body (false when only copied in from interfaces)
 * @param interfaceOrigins  names of the implemented interfaces that contributed this property, in
 *                          {@code implements} order (empty on interfaces and edges)
 */
public record Property(String name, PropertyType type, boolean nullable, List<Annotation> annotations,
                       boolean declaredDirectly, List<String> interfaceOrigins) {
    public Property {
        annotations = List.copyOf(annotations);
        interfaceOrigins = List.copyOf(interfaceOrigins);
    }

    /** A directly declared property without annotations; handy for tests and programmatic schemas. */
    public Property(String name, PropertyType type, boolean nullable) {
        this(name, type, nullable, List.of(), true, List.of());
    }

    public Optional<Annotation> annotation(String name) {
        return Annotation.find(annotations, name);
    }

    /** The {@code @embed} declaration of a Vector property, if any. */
    public Optional<Embed> embed() {
        return annotation("embed").map(a -> new Embed(a.value(), a.kwargs().get("model")));
    }

    /** {@code type.spelling()} plus {@code ?} when nullable. */
    public String typeSpelling() {
        return type.spelling() + (nullable ? "?" : "");
    }

    /** {@code @embed("source", model="…")}: catalog-only provenance of a vector. {@code model} may be null. */
    public record Embed(String source, String model) {}
}
