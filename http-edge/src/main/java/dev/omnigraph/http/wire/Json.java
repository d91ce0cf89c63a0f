package dev.omnigraph.http.wire;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.load.JsonMessages;
import dev.omnigraph.engine.read.ValueText;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.ParseError;
import java.nio.charset.StandardCharsets;
import java.time.temporal.TemporalAccessor;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one Jackson setup of the edge. Engine values are turned into JSON by hand ({@link #value}) rather than with
 * Jackson's java.time module: dates become ISO strings, and nothing reflective runs on the event loop.
 */
public final class Json {
    /**
     * Jackson's default 20 MB cap on one string would refuse a {@code /load} envelope the body limit admits (32 MiB
     * of NDJSON in one {@code data} string) as "malformed". Every document handed to {@link #parse} is already
     * bounded by the caller's byte limit, and no string can be longer than its document, so the string cap is
     * lifted here; the nesting and number caps stay at Jackson's defaults. A key given twice in one object is a
     * parse error ({@link #parse}).
     */
    public static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build())
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() {
    };

    private Json() {
    }

    public static ObjectNode object() {
        return NODES.objectNode();
    }

    public static ArrayNode array() {
        return NODES.arrayNode();
    }

    /** One engine value (String, numbers, Boolean, LocalDate, Instant, List, Map, byte[]) as JSON. */
    public static JsonNode value(Object value) {
        if (value == null) return NODES.nullNode();
        if (value instanceof String s) return NODES.textNode(s);
        if (value instanceof Boolean b) return NODES.booleanNode(b);
        if (value instanceof Integer i) return NODES.numberNode(i);
        if (value instanceof Long l) return NODES.numberNode(l);
        if (value instanceof Short s) return NODES.numberNode(s);
        if (value instanceof Byte b) return NODES.numberNode(b);
        // NaN and infinities are not JSON numbers; spell them as strings rather than emit invalid JSON.
        if (value instanceof Float f) return Float.isFinite(f) ? NODES.numberNode(f) : NODES.textNode(f.toString());
        if (value instanceof Double d) return Double.isFinite(d) ? NODES.numberNode(d) : NODES.textNode(d.toString());
        if (value instanceof Number n) return NODES.textNode(n.toString());
        if (value instanceof java.time.Instant i) return NODES.textNode(ValueText.dateTime(i));
        if (value instanceof TemporalAccessor t) return NODES.textNode(t.toString());
        if (value instanceof byte[] bytes) return NODES.textNode(Base64.getEncoder().encodeToString(bytes));
        if (value instanceof JsonNode node) return node;
        if (value instanceof List<?> list) {
            ArrayNode out = array();
            list.forEach(item -> out.add(value(item)));
            return out;
        }
        if (value instanceof Map<?, ?> map) {
            ObjectNode out = object();
            map.forEach((k, v) -> out.set(String.valueOf(k), value(v)));
            return out;
        }
        return NODES.textNode(value.toString());
    }

    /** A result row as an object keyed by column name, in column order. */
    public static ObjectNode row(List<String> columns, List<Object> cells) {
        ObjectNode out = object();
        for (int i = 0; i < columns.size(); i++) {
            out.set(columns.get(i), value(i < cells.size() ? cells.get(i) : null));
        }
        return out;
    }

    public static byte[] bytes(JsonNode node) {
        try {
            return MAPPER.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree failed to serialize", e);
        }
    }

    public static String text(JsonNode node) {
        return new String(bytes(node), StandardCharsets.UTF_8);
    }

    public static String pretty(JsonNode node) {
        try {
            return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree failed to serialize", e);
        }
    }

    /**
     * Parses a JSON document given by a caller ({@code what} names it in errors: "request body", "--params").
     * Malformed JSON is a {@link ParseError} carrying the line and column where it broke, in words for the sender
     * ({@link JsonMessages}). Stricter than Jackson's defaults where two JSON parsers could read one document two
     * ways: a key given twice in one object and anything after the document (a second document, stray text) are
     * refused, never resolved by picking one.
     */
    public static JsonNode parse(byte[] bytes, String what) {
        JsonParser parser = null;
        try {
            parser = MAPPER.createParser(bytes);
            JsonNode node = MAPPER.readTree(parser);
            if (node == null || node.isMissingNode()) {
                throw new BadRequest(what + " is empty; expected a JSON object");
            }
            if (parser.nextToken() != null) {
                JsonLocation at = parser.currentTokenLocation();
                throw new ParseError(what, Math.max(at.getLineNr(), 1), Math.max(at.getColumnNr(), 1), "",
                        "malformed JSON: unexpected content after the JSON document");
            }
            return node;
        } catch (JsonProcessingException e) {
            // A limit (nesting depth, number length) is reported without a location: the parser's is where it broke.
            JsonLocation at = e.getLocation() != null ? e.getLocation() : parser == null ? null : parser.currentLocation();
            int line = at == null ? 0 : at.getLineNr();
            int column = at == null ? 0 : at.getColumnNr();
            throw new ParseError(what, Math.max(line, 1), Math.max(column, 1), "", JsonMessages.malformed(e));
        } catch (java.io.IOException e) {
            throw new BadRequest(what + " could not be read: " + e.getMessage());
        } finally {
            if (parser != null) {
                try {
                    parser.close();
                } catch (java.io.IOException ignored) {
                    // A byte-array parser holds nothing to release.
                }
            }
        }
    }

    public static JsonNode parse(String text, String what) {
        return parse(text.getBytes(StandardCharsets.UTF_8), what);
    }

    /** Query parameters as the engine's binder expects them: a map of plain Java values, as Jackson reads JSON. */
    public static Map<String, Object> params(JsonNode node, String what) {
        if (node == null || node.isNull() || node.isMissingNode()) return Map.of();
        if (!node.isObject()) throw new BadRequest(what + " must be a JSON object of parameter values");
        return MAPPER.convertValue(node, MAP);
    }
}
