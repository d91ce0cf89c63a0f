package dev.omnigraph.engine.schema;

import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A free annotation kept as metadata: {@code @name}, {@code @name(value)} or {@code @name(value, k=v, …)}.
 * Literal arguments are kept as text (strings decoded, numbers/booleans/identifiers as written),
 * which is all the catalog needs; kwargs are sorted so rendering and hashing are deterministic.
 *
 * @param value the positional argument, or {@code null} for a bare annotation
 */
public record Annotation(String name, String value, Map<String, String> kwargs) {
    public Annotation {
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("annotation name");
        kwargs = kwargs == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(kwargs));
    }

    public Annotation(String name, String value) {
        this(name, value, Map.of());
    }

    public Optional<String> valueIfPresent() {
        return Optional.ofNullable(value);
    }

    static Optional<Annotation> find(java.util.List<Annotation> annotations, String name) {
        return annotations.stream().filter(a -> a.name().equals(name)).findFirst();
    }
}
