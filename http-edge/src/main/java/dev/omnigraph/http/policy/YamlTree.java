package dev.omnigraph.http.policy;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.omnigraph.storage.error.ParseError;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A YAML document read with Jackson's streaming YAML parser into plain maps, lists and scalars that remember the
 * line and column they start at, so every later complaint about a bundle can point at the offending text. Bounded:
 * nesting deeper than {@link #MAX_DEPTH}, more than {@link #MAX_NODES} values or a repeated key is a
 * {@link ParseError}, never a stack overflow or an exhausted heap.
 */
record YamlTree(Object value, int line, int column) {
    static final int MAX_DEPTH = 16;
    static final int MAX_NODES = 500_000;
    private static final YAMLFactory FACTORY = new YAMLFactory();

    /** The node as a map of key to node, or null when it is not a map. */
    @SuppressWarnings("unchecked")
    Map<String, YamlTree> map() {
        return value instanceof Map<?, ?> m ? (Map<String, YamlTree>) m : null;
    }

    @SuppressWarnings("unchecked")
    List<YamlTree> list() {
        return value instanceof List<?> l ? (List<YamlTree>) l : null;
    }

    /** The scalar text, or null for a map, a list or an explicit null. */
    String text() {
        return value instanceof String s ? s : null;
    }

    static YamlTree parse(String text, String origin) {
        try (JsonParser parser = FACTORY.createParser(text)) {
            JsonToken first = parser.nextToken();
            if (first == null) return new YamlTree(null, 1, 1);
            return new Reader(parser, origin).read(0);
        } catch (StreamReadException e) {
            JsonLocation at = e.getLocation();
            throw new ParseError(origin, at == null ? 1 : Math.max(1, at.getLineNr()),
                    at == null ? 1 : Math.max(1, at.getColumnNr()), "", "not valid YAML: " + oneLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new ParseError(origin, 1, 1, "", "not readable as YAML: " + e.getMessage());
        }
    }

    /** The parser's message without SnakeYAML's multi-line excerpt (the position is already in the error). */
    private static String oneLine(String message) {
        if (message == null) return "";
        String first = message.split("\n in ", 2)[0];
        return first.replaceAll("\\s+", " ").strip();
    }

    private static final class Reader {
        private final JsonParser parser;
        private final String origin;
        private int nodes;

        Reader(JsonParser parser, String origin) {
            this.parser = parser;
            this.origin = origin;
        }

        /** Reads the value at the current token, leaving the parser on its last token. */
        YamlTree read(int depth) throws IOException {
            JsonLocation at = parser.currentTokenLocation();
            int line = Math.max(1, at.getLineNr());
            int column = Math.max(1, at.getColumnNr());
            if (++nodes > MAX_NODES) {
                throw new ParseError(origin, line, column, "", "more than " + MAX_NODES + " values; a bundle this large is refused");
            }
            JsonToken token = parser.currentToken();
            if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
                if (depth >= MAX_DEPTH) {
                    throw new ParseError(origin, line, column, "", "nested deeper than " + MAX_DEPTH + " levels");
                }
            }
            return switch (token) {
                case START_OBJECT -> {
                    Map<String, YamlTree> map = new LinkedHashMap<>();
                    while (parser.nextToken() == JsonToken.FIELD_NAME) {
                        String key = parser.currentName();
                        JsonLocation keyAt = parser.currentTokenLocation();
                        parser.nextToken();
                        YamlTree child = read(depth + 1);
                        if (map.put(key, child) != null) {
                            throw new ParseError(origin, keyAt.getLineNr(), keyAt.getColumnNr(), key, "key '" + key
                                    + "' is given twice");
                        }
                    }
                    yield new YamlTree(map, line, column);
                }
                case START_ARRAY -> {
                    List<YamlTree> list = new ArrayList<>();
                    while (parser.nextToken() != JsonToken.END_ARRAY) {
                        list.add(read(depth + 1));
                    }
                    yield new YamlTree(list, line, column);
                }
                case VALUE_NULL -> new YamlTree(null, line, column);
                default -> new YamlTree(parser.getText(), line, column);
            };
        }
    }
}
