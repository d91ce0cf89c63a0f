package dev.omnigraph.engine.schema;

import dev.omnigraph.storage.error.ValidationError;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Node ids of keyed node types and the canonical scalar spelling they are built from (storage-layout §8).
 *
 * <p>Canonical spelling: strings and enum values verbatim; integers in decimal (U32/U64 carried in a
 * {@link Long} are read as unsigned); booleans {@code true}/{@code false}; Date ({@link LocalDate}) as its
 * epoch-day integer; DateTime ({@link Instant}) as epoch milliseconds (floored to the stored millisecond);
 * finite floats as the shortest decimal that reads back to the same value at the stored width (F32 or F64),
 * written in plain positional notation without exponent and without a trailing {@code .0} — so
 * {@code 1.0 → "1"}, {@code 0.1f → "0.1"}, {@code 1e21 → "1000000000000000000000"} — and both zeros as
 * {@code "0"}. This is the spelling Rust's {@code Display} gives the same values, which the original engine uses.
 * NaN, infinities, nulls, lists and vectors are rejected with {@link ValidationError}.
 */
final class KeyIds {
    private KeyIds() {}

    /**
     * The id of one node: one key property → its canonical scalar; several → a compact JSON array of the
     * canonical scalars ordered by stable property id (e.g. {@code ["a","1"]}).
     *
     * @throws IllegalArgumentException if the node type has no {@code @key}
     * @throws ValidationError          for a missing/null key value, a value of the wrong Java type, an enum
     *                                  value outside the enum, or a non-finite float
     */
    public static String derive(NodeTable table, Map<String, ?> values) {
        return derive(table.type(), table.propertyIds(), values);
    }

    /**
     * As {@link #derive(NodeTable, Map)}, with the stable property ids given directly
     * (name → id, e.g. from {@link SchemaIr.NodeIr#properties()}).
     */
    public static String derive(NodeType type, Map<String, Long> propertyIds, Map<String, ?> values) {
        return deriver(type, propertyIds).apply(values);
    }

    /**
     * The id rule of {@link #derive(NodeType, Map, Map)} with the key properties resolved and ordered once, for
     * deriving many ids of one type (a load's lines).
     */
    public static Function<Map<String, ?>, String> deriver(NodeType type, Map<String, Long> propertyIds) {
        List<Property> keys = type.key().map(k -> k.properties().stream()
                .map(n -> type.property(n).orElseThrow())
                .sorted(java.util.Comparator.comparingLong((Property p) -> stableId(propertyIds, type, p)))
                .toList()).orElseThrow(() -> new IllegalArgumentException(
                        "node type " + type.name() + " has no @key; its ids are supplied or minted"));
        String typeName = type.name();
        if (keys.size() == 1) {
            Property key = keys.get(0);
            return values -> canonical(typeName, key, values.get(key.name()));
        }
        return values -> {
            List<String> parts = new ArrayList<>(keys.size());
            for (Property p : keys) parts.add(canonical(typeName, p, values.get(p.name())));
            return jsonArray(parts);
        };
    }

    private static long stableId(Map<String, Long> ids, NodeType type, Property p) {
        Long id = ids.get(p.name());
        if (id == null) throw new IllegalArgumentException("no stable property id for " + type.name() + "." + p.name());
        return id;
    }

    /** Canonical spelling of one keyable property value (also used for uniqueness probes). */
    public static String canonical(String typeName, Property property, Object value) {
        if (value == null)
            throw new ValidationError(typeName, property.name(), null,
                    "key property '" + property.name() + "' of " + typeName + " is null or missing");
        PropertyType type = property.type();
        if (type instanceof PropertyType.EnumOf e) {
            String s = expect(value, String.class, typeName, property);
            if (!e.values().contains(s))
                throw new ValidationError(typeName, property.name(), null,
                        "'" + s + "' is not a value of " + e.spelling() + " for " + typeName + "." + property.name());
            return s;
        }
        if (!(type instanceof PropertyType.Scalar scalar))
            throw new ValidationError(typeName, property.name(), null,
                    "property '" + property.name() + "' of type " + type.spelling() + " cannot be part of a key");
        return switch (scalar.kind()) {
            case STRING -> expect(value, String.class, typeName, property);
            case BOOL -> expect(value, Boolean.class, typeName, property).toString();
            case I32 -> Long.toString(integer(value, Integer.MIN_VALUE, Integer.MAX_VALUE, typeName, property));
            case I64 -> Long.toString(integer(value, Long.MIN_VALUE, Long.MAX_VALUE, typeName, property));
            case U32 -> Long.toString(integer(value, 0, 0xFFFF_FFFFL, typeName, property));
            case U64 -> unsigned64(value, typeName, property);
            case F32 -> formatF32((float) finite(value instanceof Float f ? f.doubleValue()
                    : wrongType(value, "Float", typeName, property), typeName, property));
            case F64 -> formatF64(finite(value instanceof Double d ? d : value instanceof Float f ? f.doubleValue()
                    : wrongType(value, "Double", typeName, property), typeName, property));
            case DATE -> Long.toString(expect(value, LocalDate.class, typeName, property).toEpochDay());
            case DATETIME -> Long.toString(expect(value, Instant.class, typeName, property).toEpochMilli());
            case BLOB -> throw new ValidationError(typeName, property.name(), null,
                    "Blob property '" + property.name() + "' cannot be part of a key");
        };
    }

    /** Shortest round-trip spelling of a double, positional notation, {@code -0.0 → "0"}. */
    public static String formatF64(double v) {
        return shortest(v, false);
    }

    /** Shortest spelling that reads back to the same {@code float} (not the same double). */
    public static String formatF32(float v) {
        return shortest(v, true);
    }

    private static String shortest(double v, boolean single) {
        if (!Double.isFinite(v)) throw new IllegalArgumentException("not finite: " + v);
        if (v == 0.0) return "0";
        BigDecimal exact = new BigDecimal(v);
        int maxDigits = single ? 9 : 17; // enough digits to round-trip any value of that width
        for (int digits = 1; digits <= maxDigits; digits++) {
            BigDecimal best = null;
            // Nearest first; floor/ceiling cover the asymmetric rounding interval at powers of two.
            for (RoundingMode mode : new RoundingMode[] {RoundingMode.HALF_EVEN, RoundingMode.FLOOR, RoundingMode.CEILING}) {
                BigDecimal candidate = exact.round(new MathContext(digits, mode));
                boolean roundTrips = single ? candidate.floatValue() == (float) v : candidate.doubleValue() == v;
                if (roundTrips && (best == null
                        || candidate.subtract(exact).abs().compareTo(best.subtract(exact).abs()) < 0)) {
                    best = candidate;
                }
            }
            if (best != null) return best.stripTrailingZeros().toPlainString();
        }
        throw new IllegalStateException("no round-trip spelling for " + v);
    }

    /** Compact JSON array of strings, escaped the way serde_json does (control characters as lowercase {@code \\u00xx}). */
    static String jsonArray(List<String> parts) {
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < parts.size(); i++) {
            if (i > 0) out.append(',');
            out.append('"');
            for (char c : parts.get(i).toCharArray()) {
                switch (c) {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    case '\n' -> out.append("\\n");
                    case '\r' -> out.append("\\r");
                    case '\t' -> out.append("\\t");
                    case '\b' -> out.append("\\b");
                    case '\f' -> out.append("\\f");
                    default -> {
                        if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                        else out.append(c);
                    }
                }
            }
            out.append('"');
        }
        return out.append(']').toString();
    }

    private static long integer(Object value, long min, long max, String typeName, Property p) {
        long v;
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            v = ((Number) value).longValue();
        } else if (value instanceof BigInteger b && b.bitLength() < 64) {
            v = b.longValue();
        } else {
            return wrongTypeLong(value, typeName, p);
        }
        if (v < min || v > max)
            throw new ValidationError(typeName, p.name(), null, "value " + v + " is out of range for "
                    + p.type().spelling() + " key property '" + p.name() + "' of " + typeName);
        return v;
    }

    /** U64 travels as a Long holding the unsigned bits; a BigInteger in [0, 2^64) or a non-negative Integer is accepted too. */
    private static String unsigned64(Object value, String typeName, Property p) {
        if (value instanceof Long l) return Long.toUnsignedString(l);
        if (value instanceof BigInteger b && b.signum() >= 0 && b.bitLength() <= 64) return b.toString();
        return Long.toString(integer(value, 0, Long.MAX_VALUE, typeName, p));
    }

    private static double finite(double v, String typeName, Property p) {
        if (!Double.isFinite(v))
            throw new ValidationError(typeName, p.name(), null, "key property '" + p.name() + "' of " + typeName
                    + " must be a finite number, got " + v);
        return v;
    }

    private static <T> T expect(Object value, Class<T> type, String typeName, Property p) {
        if (!type.isInstance(value)) wrongType(value, type.getSimpleName(), typeName, p);
        return type.cast(value);
    }

    private static double wrongType(Object value, String expected, String typeName, Property p) {
        throw new ValidationError(typeName, p.name(), null, "key property '" + p.name() + "' of " + typeName + " ("
                + p.type().spelling() + ") expects a " + expected + ", got " + value.getClass().getName());
    }

    private static long wrongTypeLong(Object value, String typeName, Property p) {
        throw new ValidationError(typeName, p.name(), null, "key property '" + p.name() + "' of " + typeName + " ("
                + p.type().spelling() + ") expects an integer (Integer/Long), got " + value.getClass().getName());
    }
}
