package dev.omnigraph.engine.schema;

import java.util.OptionalLong;

/** Edge cardinality {@code @card(min..max)}; an empty max means unbounded. Default {@code 0..*}. */
public record Cardinality(long min, OptionalLong max) {
    public static final Cardinality DEFAULT = new Cardinality(0, OptionalLong.empty());

    public Cardinality {
        if (min < 0) throw new IllegalArgumentException("min < 0");
        if (max == null) max = OptionalLong.empty();
        if (max.isPresent() && max.getAsLong() < min) throw new IllegalArgumentException("max < min");
    }

    public boolean isDefault() {
        return min == 0 && max.isEmpty();
    }

    @Override
    public String toString() {
        return min + ".." + (max.isPresent() ? Long.toString(max.getAsLong()) : "*");
    }
}
