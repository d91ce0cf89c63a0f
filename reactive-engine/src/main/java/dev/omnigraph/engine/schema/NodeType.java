package dev.omnigraph.engine.schema;

import java.util.List;
import java.util.Optional;

/**
 * A node type. {@code properties} is the physical column order after {@code id}: properties copied in
 * from interfaces first (in {@code implements} order), then the node's own, each name once.
 * {@code constraints} holds every effective constraint (body, desugared property-level, inherited).
 */
public record NodeType(String name, List<Annotation> annotations, List<String> implementsTypes,
                       List<Property> properties, List<Constraint> constraints) {
    public NodeType {
        annotations = List.copyOf(annotations);
        implementsTypes = List.copyOf(implementsTypes);
        properties = List.copyOf(properties);
        constraints = List.copyOf(constraints);
    }

    public Optional<Property> property(String name) {
        return properties.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /** The node's {@code @key}, if it has one (the checker guarantees at most one). */
    public Optional<Constraint.Key> key() {
        return constraints.stream().filter(Constraint.Key.class::isInstance).map(Constraint.Key.class::cast).findFirst();
    }

    public Optional<Annotation> annotation(String name) {
        return Annotation.find(annotations, name);
    }
}
