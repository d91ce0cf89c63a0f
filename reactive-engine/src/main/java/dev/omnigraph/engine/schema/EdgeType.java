package dev.omnigraph.engine.schema;

import java.util.List;
import java.util.Optional;

/** {@code edge Name: From -> To [@card(..)] [annotations] [{ … }]}; endpoints are node type names. */
public record EdgeType(String name, String fromType, String toType, Cardinality cardinality,
                       List<Annotation> annotations, List<Property> properties, List<Constraint> constraints) {
    public EdgeType {
        annotations = List.copyOf(annotations);
        properties = List.copyOf(properties);
        constraints = List.copyOf(constraints);
    }

    public Optional<Property> property(String name) {
        return properties.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    public Optional<Annotation> annotation(String name) {
        return Annotation.find(annotations, name);
    }
}
