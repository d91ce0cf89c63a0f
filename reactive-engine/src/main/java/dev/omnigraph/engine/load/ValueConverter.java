package dev.omnigraph.engine.load;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.schema.BlobText;
import dev.omnigraph.engine.schema.Property;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import dev.omnigraph.storage.error.ValidationError;
import java.math.BigInteger;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Strict JSON → engine value conversion (languages §4.3): no coercion between JSON kinds, integers
 * range-checked at the declared width, floats finite. Errors are {@link ValidationError}s whose message starts
 * with {@code line N:}.
 */
final class ValueConverter {
    private static final BigInteger I32_MIN = BigInteger.valueOf(Integer.MIN_VALUE);
    private static final BigInteger I32_MAX = BigInteger.valueOf(Integer.MAX_VALUE);
    private static final BigInteger I64_MIN = BigInteger.valueOf(Long.MIN_VALUE);
    private static final BigInteger I64_MAX = BigInteger.valueOf(Long.MAX_VALUE);
    private static final BigInteger U32_MAX = BigInteger.valueOf(0xFFFF_FFFFL);
    private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    private ValueConverter() {}

    /** Where a value sits, for error messages. */
    record Site(int line, String typeName, String property) {
        ValidationError error(String message) {
            return new ValidationError(typeName, property, null, "line " + line + ": " + typeName + "." + property
                    + ": " + message);
        }
    }

    /** {@code node} is null when the property is absent from {@code data}. */
    static Object convert(Property property, JsonNode node, Site site) {
        if (node == null || node.isNull()) {
            if (property.nullable()) return null;
            throw site.error(node == null
                    ? "missing required property '" + property.name() + "' (" + property.typeSpelling() + ")"
                    : "null is not allowed for non-nullable " + property.typeSpelling());
        }
        PropertyType type = property.type();
        if (type instanceof PropertyType.Scalar s) return scalar(s.kind(), node, site, "");
        if (type instanceof PropertyType.EnumOf e) {
            if (!node.isTextual()) throw wrongType(node, "a string (" + e.spelling() + ")", site, "");
            String v = node.textValue();
            if (!e.values().contains(v)) throw site.error("'" + v + "' is not an allowed value of " + e.spelling());
            return v;
        }
        if (type instanceof PropertyType.ListOf l) {
            if (!node.isArray()) throw wrongType(node, "an array of " + l.element().spelling(), site, "");
            List<Object> out = new ArrayList<>(node.size());
            for (int i = 0; i < node.size(); i++) {
                JsonNode item = node.get(i);
                if (item.isNull()) throw site.error("element [" + i + "] is null; list elements must not be null");
                out.add(scalar(l.element(), item, site, "element [" + i + "]: "));
            }
            return Collections.unmodifiableList(out);
        }
        PropertyType.VectorOf v = (PropertyType.VectorOf) type;
        if (!node.isArray()) throw wrongType(node, "an array of " + v.dim() + " numbers", site, "");
        if (node.size() != v.dim())
            throw site.error("vector dimension mismatch: expected " + v.dim() + " numbers, got " + node.size());
        List<Float> out = new ArrayList<>(v.dim());
        for (int i = 0; i < node.size(); i++) out.add(f32(node.get(i), site, "element [" + i + "]: "));
        return Collections.unmodifiableList(out);
    }

    private static Object scalar(ScalarKind kind, JsonNode node, Site site, String at) {
        return switch (kind) {
            case STRING -> {
                if (!node.isTextual()) throw wrongType(node, "a string", site, at);
                yield node.textValue();
            }
            case BOOL -> {
                if (!node.isBoolean()) throw wrongType(node, "true or false", site, at);
                yield node.booleanValue();
            }
            case I32 -> integer(node, I32_MIN, I32_MAX, kind, site, at).intValue();
            case I64 -> integer(node, I64_MIN, I64_MAX, kind, site, at).longValue();
            case U32 -> integer(node, BigInteger.ZERO, U32_MAX, kind, site, at).longValue();
            // Carried as the unsigned bit pattern; longValue() keeps the low 64 bits.
            case U64 -> integer(node, BigInteger.ZERO, U64_MAX, kind, site, at).longValue();
            case F32 -> f32(node, site, at);
            case F64 -> {
                if (!node.isNumber()) throw wrongType(node, "a number", site, at);
                double d = node.doubleValue();
                // JSON has no NaN/Infinity; an exponent too large for a double parses as Infinity.
                if (!Double.isFinite(d)) throw site.error(at + "number " + node + " is out of range for F64");
                yield d;
            }
            case DATE -> date(node, site, at);
            case DATETIME -> dateTime(node, site, at);
            case BLOB -> {
                if (!node.isTextual()) throw wrongType(node, "a \"base64:…\" string", site, at);
                try {
                    yield BlobText.decode(node.textValue());
                } catch (IllegalArgumentException e) {
                    throw site.error(at + e.getMessage());
                }
            }
        };
    }

    private static Float f32(JsonNode node, Site site, String at) {
        if (!node.isNumber()) throw wrongType(node, "a number", site, at);
        float f = (float) node.doubleValue();
        if (!Float.isFinite(f)) throw site.error(at + "number " + node + " is out of range for F32");
        return f;
    }

    private static BigInteger integer(JsonNode node, BigInteger min, BigInteger max, ScalarKind kind, Site site,
                                      String at) {
        // A fractional or exponent spelling (1.0, 1e3) is a float token, not an integer.
        if (!node.isIntegralNumber()) throw wrongType(node, "an integer (" + kind.spelling() + ")", site, at);
        BigInteger v = node.bigIntegerValue();
        if (v.compareTo(min) < 0 || v.compareTo(max) > 0)
            throw site.error(at + "integer " + v + " is out of range for " + kind.spelling()
                    + " [" + min + ", " + max + "]");
        return v;
    }

    private static LocalDate date(JsonNode node, Site site, String at) {
        if (node.isIntegralNumber()) {
            // Date32 holds a signed 32-bit day count.
            BigInteger days = integer(node, I32_MIN, I32_MAX, ScalarKind.DATE, site, at);
            return LocalDate.ofEpochDay(days.longValue());
        }
        if (!node.isTextual()) throw wrongType(node, "epoch days (integer) or a \"YYYY-MM-DD\" string", site, at);
        try {
            LocalDate d = LocalDate.parse(node.textValue(), DateTimeFormatter.ISO_LOCAL_DATE);
            long days = d.toEpochDay();
            if (days < Integer.MIN_VALUE || days > Integer.MAX_VALUE) throw new DateTimeException("outside Date32");
            return d;
        } catch (DateTimeException e) {
            throw site.error(at + "'" + node.textValue() + "' is not a valid date (expected YYYY-MM-DD)");
        }
    }

    private static Instant dateTime(JsonNode node, Site site, String at) {
        if (node.isIntegralNumber())
            return Instant.ofEpochMilli(integer(node, I64_MIN, I64_MAX, ScalarKind.DATETIME, site, at).longValue());
        if (!node.isTextual()) throw wrongType(node, "epoch milliseconds (integer) or an ISO-8601 string", site, at);
        String text = node.textValue();
        Instant parsed;
        try {
            parsed = OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
        } catch (DateTimeException withOffset) {
            try {
                // No offset given: read as UTC, the zone the stored Date64 is defined in.
                parsed = LocalDateTime.parse(text, DateTimeFormatter.ISO_LOCAL_DATE_TIME).toInstant(ZoneOffset.UTC);
            } catch (DateTimeException e) {
                throw site.error(at + "'" + text + "' is not a valid ISO-8601 date-time");
            }
        }
        try {
            // Stored at millisecond precision; toEpochMilli floors sub-millisecond digits.
            return Instant.ofEpochMilli(parsed.toEpochMilli());
        } catch (ArithmeticException e) {
            throw site.error(at + "'" + text + "' is outside the epoch-millisecond range");
        }
    }

    private static ValidationError wrongType(JsonNode node, String expected, Site site, String at) {
        return site.error(at + "expected " + expected + ", got JSON " + kindOf(node));
    }

    static String kindOf(JsonNode node) {
        return switch (node.getNodeType()) {
            case STRING -> "string";
            case NUMBER -> node.isIntegralNumber() ? "integer" : "float";
            case BOOLEAN -> "boolean";
            case ARRAY -> "array";
            case OBJECT, POJO -> "object";
            case NULL -> "null";
            default -> node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }
}
