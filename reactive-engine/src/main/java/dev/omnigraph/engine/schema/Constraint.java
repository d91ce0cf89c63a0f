package dev.omnigraph.engine.schema;

import java.util.List;

/**
 * A constraint of a node or edge body. Property-level {@code @key}/{@code @unique}/{@code @index} are
 * desugared into these, so both syntactic positions yield the same value.
 */
public sealed interface Constraint {

    /** The property names this constraint reads, in declared order. */
    List<String> properties();

    /** The complete ordered key tuple; nodes only, at most one per node. */
    record Key(List<String> properties) implements Constraint {
        public Key {
            properties = List.copyOf(properties);
        }
    }

    /** Nulls are exempt. On edges the names may include the implicit {@code src}/{@code dst}. */
    record Unique(List<String> properties) implements Constraint {
        public Unique {
            properties = List.copyOf(properties);
        }
    }

    /** Declares intent only; the physical index kind follows the property type. */
    record Index(List<String> properties) implements Constraint {
        public Index {
            properties = List.copyOf(properties);
        }
    }

    /** Inclusive numeric bounds; either end may be open ({@code null}). */
    record Range(String property, RangeBound min, RangeBound max) implements Constraint {
        @Override
        public List<String> properties() {
            return List.of(property);
        }
    }

    /** A java.util.regex pattern (already verified to compile) for a String property. */
    record Check(String property, String pattern) implements Constraint {
        @Override
        public List<String> properties() {
            return List.of(property);
        }
    }
}
