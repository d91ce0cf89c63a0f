package dev.omnigraph.engine.load;

import java.util.Map;

/**
 * One entity read from a strict NDJSON load line (languages §4.1), already type-checked against the catalog.
 *
 * <p>{@code values} holds every declared property of the type, in declaration order, as engine Java values
 * (String, Boolean, Integer, Long, Float, Double, LocalDate, Instant, List); an absent or {@code null}
 * nullable property maps to {@code null}. The map is unmodifiable and does not contain {@code id}.
 */
public sealed interface LoadRecord {

    /** 1-based physical line number of the input this record came from. */
    int line();

    /** Canonical catalog type name. */
    String typeName();

    /** Entity id: derived from the key, supplied in {@code data.id}, or a fresh ULID. */
    String id();

    Map<String, Object> values();

    record NodeRecord(int line, String typeName, String id, Map<String, Object> values) implements LoadRecord {
        public NodeRecord {
            values = freeze(values);
        }
    }

    /** {@code src}/{@code dst} are the {@code from}/{@code to} node ids, verbatim. */
    record EdgeRecord(int line, String edgeTypeName, String id, String src, String dst, Map<String, Object> values)
            implements LoadRecord {
        public EdgeRecord {
            values = freeze(values);
        }

        @Override
        public String typeName() {
            return edgeTypeName;
        }
    }

    // Map.copyOf refuses nulls, and absent nullable properties are null here.
    private static Map<String, Object> freeze(Map<String, Object> values) {
        return FrozenValues.of(values);
    }
}
