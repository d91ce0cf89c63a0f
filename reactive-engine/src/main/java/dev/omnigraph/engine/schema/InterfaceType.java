package dev.omnigraph.engine.schema;

import java.util.List;
import java.util.Optional;

/** {@code interface Name { … }}: a property set that nodes copy in via {@code implements}. */
public record InterfaceType(String name, List<Property> properties) {
    public InterfaceType {
        properties = List.copyOf(properties);
    }

    public Optional<Property> property(String name) {
        return properties.stream().filter(p -> p.name().equals(name)).findFirst();
    }
}
