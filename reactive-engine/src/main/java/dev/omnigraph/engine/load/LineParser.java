package dev.omnigraph.engine.load;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.omnigraph.engine.load.LoadRecord.EdgeRecord;
import dev.omnigraph.engine.load.LoadRecord.NodeRecord;
import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.Property;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.ValidText;
import dev.omnigraph.storage.error.ParseError;
import dev.omnigraph.storage.error.ValidationError;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.Set;

/**
 * Parses one strict NDJSON line (languages §4.1) into a {@link LoadRecord}. Two phases: the whole line is
 * first read for syntax and shape ({@link ParseError}), then checked against the catalog
 * ({@link ValidationError}), so a line's error kind does not depend on the order of its keys. Phase one also
 * refuses any name or string that is not valid text ({@link ValidText}: NUL, unpaired surrogates), naming the
 * key, before the line can have any effect.
 * Thread-safe: holds only immutable state.
 */
final class LineParser {
    static final String SOURCE = "ndjson";
    /** Physical column names that may never appear as keys (languages §4.1). */
    static final Set<String> RESERVED = Set.of("_tombstone", "_rowid", "_rowaddr", "_rowoffset",
            "_row_created_at_version", "_row_last_updated_at_version");

    private final Catalog catalog;
    private final JsonFactory factory;
    private final ObjectMapper mapper;
    private final Map<String, List<EdgeTable>> edgesByFoldedName = new HashMap<>();
    /** Per node and edge type name, resolved once per reader rather than per line. */
    private final Map<String, TypePlan> nodePlans = new HashMap<>();
    private final Map<String, TypePlan> edgePlans = new HashMap<>();

    /**
     * A type's declared properties with their positions, and for a keyed node type its id rule.
     * {@code derive} is null for a type without a key.
     */
    private record TypePlan(List<Property> properties, Map<String, Integer> positions,
                            Function<Map<String, ?>, String> derive) {
        static TypePlan of(List<Property> properties, Function<Map<String, ?>, String> derive) {
            Map<String, Integer> positions = new HashMap<>();
            for (int i = 0; i < properties.size(); i++) positions.put(properties.get(i).name(), i);
            return new TypePlan(properties, positions, derive);
        }
    }

    LineParser(Catalog catalog, int maxLineBytes) {
        this.catalog = catalog;
        // Jackson's default string/name caps (20M chars / 50k) are below what a legal line may hold.
        int longest = Math.max(maxLineBytes, 50_000);
        this.factory = JsonFactory.builder()
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxStringLength(Math.max(longest, StreamReadConstraints.DEFAULT_MAX_STRING_LEN))
                        .maxNameLength(longest)
                        .build())
                .build();
        this.mapper = new ObjectMapper(factory);
        // Resolve the tree deserializer now: its first lookup takes a lock, which lines parsed side by side on
        // non-blocking threads would otherwise contend for.
        try {
            mapper.readTree("{}");
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        for (EdgeTable e : catalog.edges().values()) {
            edgesByFoldedName.computeIfAbsent(e.typeName().toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(e);
            edgePlans.put(e.typeName(), TypePlan.of(e.type().properties(), null));
        }
        for (NodeTable n : catalog.nodes().values())
            nodePlans.put(n.typeName(), TypePlan.of(n.type().properties(),
                    n.type().key().isPresent() ? n.idDeriver() : null));
    }

    /** A key as it appeared in the line: its 1-based byte column and its value. */
    private record Field(int column, JsonNode value) {}

    /** The shape of a line after phase one. */
    private static final class Shape {
        /** Whether names and strings need the {@link ValidText} check: false for a plain line (see below). */
        final boolean checkText;
        Field type;
        Field edge;
        Field from;
        Field to;
        final LinkedHashMap<String, Field> dataFields = new LinkedHashMap<>();

        Shape(boolean checkText) {
            this.checkText = checkText;
        }
    }

    /**
     * A line of printable-or-control ASCII without a backslash decodes only to characters U+0001..U+007F: no
     * escape can spell a NUL or a surrogate and no multi-byte sequence can decode to one, so no name or string
     * of it can break {@link ValidText}, and its per-string checks are skipped. Any other line is checked.
     */
    static boolean plainAscii(byte[] bytes) {
        for (byte b : bytes) {
            if (b <= 0 || b == '\\') return false; // negative: a byte >= 0x80
        }
        return true;
    }

    LoadRecord parse(int line, byte[] bytes) {
        return parse(line, bytes, Ulid::next);
    }

    /** {@code freshId}: the id of a record that neither supplies one nor has a key (asked at most once). */
    LoadRecord parse(int line, byte[] bytes, Supplier<String> freshId) {
        Shape s = shape(line, bytes);
        return s.type != null ? node(line, s, freshId) : edge(line, s, freshId);
    }

    // ---- phase one: syntax and shape -------------------------------------------------------------------

    private Shape shape(int line, byte[] bytes) {
        int first = 0;
        while (first < bytes.length && isJsonSpace(bytes[first])) first++;
        if (first == bytes.length) throw parseError(line, 1, "", "blank-but-not-empty line (only whitespace)");
        // Besides giving a clear message, this keeps Jackson from guessing UTF-16/32 or skipping a BOM:
        // it sniffs the first four bytes, and valid UTF-8 JSON never has a NUL byte there.
        if (bytes[first] != '{') throw parseError(line, first + 1, "", "a line must be one JSON object");
        for (int i = 0; i < Math.min(4, bytes.length); i++)
            if (bytes[i] == 0) throw parseError(line, i + 1, "", "NUL byte; the input must be UTF-8 JSON");
        JsonParser p;
        try {
            p = factory.createParser(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (p) {
            Shape s = new Shape(!plainAscii(bytes));
            p.nextToken(); // START_OBJECT, checked above
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                int col = column(p.currentTokenLocation());
                if (s.checkText) requireValidText(line, col, "", "key", name);
                if (RESERVED.contains(name)) throw parseError(line, col, name, "reserved name '" + name + "'");
                JsonToken value = p.nextToken();
                switch (name) {
                    case "type" -> s.type = string(p, line, name, col, s.checkText);
                    case "edge" -> s.edge = string(p, line, name, col, s.checkText);
                    case "from" -> s.from = string(p, line, name, col, s.checkText);
                    case "to" -> s.to = string(p, line, name, col, s.checkText);
                    case "data" -> data(p, value, line, s);
                    default -> throw parseError(line, col, name, "unknown top-level key '" + name
                            + "' (node lines have type, data; edge lines have edge, from, to, data)");
                }
            }
            if (p.nextToken() != null)
                throw parseError(line, column(p.currentTokenLocation()), "",
                        "unexpected content after the JSON object");
            checkShape(line, s);
            return s;
        } catch (JsonProcessingException e) {
            // A limit (nesting depth, number length) is reported without a location: the parser's is where it broke.
            JsonLocation at = e.getLocation() != null ? e.getLocation() : p.currentLocation();
            throw parseError(line, column(at), path(p.getParsingContext()), JsonMessages.malformed(e));
        } catch (IOException e) {
            throw new UncheckedIOException(e); // reading a byte array does no I/O
        }
    }

    private static Field string(JsonParser p, int line, String name, int col, boolean checkText) throws IOException {
        if (p.currentToken() != JsonToken.VALUE_STRING)
            throw parseError(line, column(p.currentTokenLocation()), name, "\"" + name + "\" must be a JSON string");
        String text = p.getText();
        if (checkText) requireValidText(line, column(p.currentTokenLocation()), name, "value", text);
        return new Field(col, TextNode.valueOf(text));
    }

    /** Data keys with their values as trees: their types are known only once the whole line is read. */
    private void data(JsonParser p, JsonToken value, int line, Shape s) throws IOException {
        if (value != JsonToken.START_OBJECT)
            throw parseError(line, column(p.currentTokenLocation()), "data", "\"data\" must be a JSON object");
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            int at = column(p.currentTokenLocation());
            if (s.checkText) requireValidText(line, at, "data", "key", name);
            if (RESERVED.contains(name))
                throw parseError(line, at, "data." + name, "reserved name '" + name + "'");
            p.nextToken();
            JsonNode node = value(p);
            if (s.checkText) requireValidText(line, at, "data." + name, node);
            s.dataFields.put(name, new Field(at, node == null ? NullNode.getInstance() : node));
        }
    }

    /** A data value as {@code readTree} builds it; the common scalars without the tree deserializer. */
    private JsonNode value(JsonParser p) throws IOException {
        return switch (p.currentToken()) {
            case VALUE_STRING -> TextNode.valueOf(p.getText());
            case VALUE_TRUE -> BooleanNode.TRUE;
            case VALUE_FALSE -> BooleanNode.FALSE;
            case VALUE_NULL -> NullNode.getInstance();
            case VALUE_NUMBER_INT -> switch (p.getNumberType()) {
                case INT -> IntNode.valueOf(p.getIntValue());
                case LONG -> LongNode.valueOf(p.getLongValue());
                default -> mapper.readTree(p);
            };
            default -> mapper.readTree(p);
        };
    }

    private static void checkShape(int line, Shape s) {
        if (s.type != null && s.edge != null) {
            boolean edgeLater = s.edge.column() > s.type.column();
            throw parseError(line, Math.max(s.edge.column(), s.type.column()), edgeLater ? "edge" : "type",
                    "a line has exactly one of \"type\" (node) or \"edge\" (edge), not both");
        }
        if (s.type == null && s.edge == null)
            throw parseError(line, 1, "type", "a line needs \"type\" (node) or \"edge\" (edge)");
        if (s.type != null) {
            Field stray = s.from != null ? s.from : s.to;
            if (stray != null) {
                String name = s.from != null ? "from" : "to";
                throw parseError(line, stray.column(), name,
                        "unknown top-level key '" + name + "' on a node line (allowed: type, data)");
            }
            return;
        }
        if (s.from == null) throw parseError(line, 1, "from", "an edge line needs \"from\" (the source node id)");
        if (s.to == null) throw parseError(line, 1, "to", "an edge line needs \"to\" (the destination node id)");
        for (String implicit : List.of("src", "dst")) {
            Field f = s.dataFields.get(implicit);
            if (f != null)
                throw parseError(line, f.column(), "data." + implicit,
                        "'" + implicit + "' is implicit on edges; use \"from\"/\"to\"");
        }
    }

    /** Every string and key inside a data value; {@code column} is its key's. Iterative: nesting is Jackson-capped, not stack-capped here. */
    private static void requireValidText(int line, int column, String path, JsonNode value) {
        if (value == null) return;
        Deque<Map.Entry<String, JsonNode>> todo = new ArrayDeque<>();
        todo.push(Map.entry(path, value));
        while (!todo.isEmpty()) {
            Map.Entry<String, JsonNode> next = todo.pop();
            JsonNode node = next.getValue();
            if (node.isTextual()) {
                requireValidText(line, column, next.getKey(), "value", node.textValue());
            } else if (node.isArray()) {
                for (int i = node.size() - 1; i >= 0; i--) todo.push(Map.entry(next.getKey() + "[" + i + "]", node.get(i)));
            } else if (node.isObject()) {
                for (Map.Entry<String, JsonNode> f : node.properties()) {
                    requireValidText(line, column, next.getKey(), "key", f.getKey());
                    todo.push(Map.entry(next.getKey() + "." + f.getKey(), f.getValue()));
                }
            }
        }
    }

    /** @param what "key" (a member name inside {@code path}) or "value" (the string at {@code path}) */
    private static void requireValidText(int line, int column, String path, String what, String text) {
        String problem = ValidText.problem(text);
        if (problem != null)
            throw parseError(line, column, path, (what.equals("key") ? "a key " : "the value ") + problem);
    }

    // ---- phase two: the catalog ------------------------------------------------------------------------

    private NodeRecord node(int line, Shape s, Supplier<String> freshId) {
        String typeName = s.type.value().textValue();
        NodeTable table = catalog.node(typeName).orElseThrow(() -> new ValidationError(typeName, null, null,
                "line " + line + ": unknown node type '" + typeName + "'"));
        String supplied = suppliedId(line, typeName, s);
        TypePlan plan = nodePlans.get(table.typeName());
        Map<String, Object> values = values(line, typeName, "node", plan, s);
        if (plan.derive() == null)
            return new NodeRecord(line, typeName, supplied != null ? supplied : freshId.get(), values);
        String derived;
        try {
            derived = plan.derive().apply(values);
        } catch (ValidationError e) {
            throw new ValidationError(e.typeName(), e.property(), e.entityId(), "line " + line + ": " + e.getMessage());
        }
        if (supplied != null && !supplied.equals(derived))
            throw new ValidationError(typeName, "id", supplied, "line " + line + ": supplied id '" + supplied
                    + "' does not match the id '" + derived + "' derived from the key of " + typeName);
        return new NodeRecord(line, typeName, derived, values);
    }

    private EdgeRecord edge(int line, Shape s, Supplier<String> freshId) {
        String spelled = s.edge.value().textValue();
        EdgeTable table = edgeTable(line, spelled);
        String typeName = table.typeName();
        String supplied = suppliedId(line, typeName, s);
        Map<String, Object> values = values(line, typeName, "edge", edgePlans.get(typeName), s);
        return new EdgeRecord(line, typeName, supplied != null ? supplied : freshId.get(),
                s.from.value().textValue(), s.to.value().textValue(), values);
    }

    /** Exact name first; otherwise the one edge type whose name matches ignoring case. */
    private EdgeTable edgeTable(int line, String spelled) {
        var exact = catalog.edge(spelled);
        if (exact.isPresent()) return exact.get();
        List<EdgeTable> folded = edgesByFoldedName.getOrDefault(spelled.toLowerCase(Locale.ROOT), List.of());
        if (folded.size() == 1) return folded.get(0);
        throw new ValidationError(spelled, null, null, "line " + line + ": " + (folded.isEmpty()
                ? "unknown edge type '" + spelled + "'"
                : "edge type '" + spelled + "' matches several types ignoring case: "
                        + folded.stream().map(EdgeTable::typeName).toList()));
    }

    private static String suppliedId(int line, String typeName, Shape s) {
        Field id = s.dataFields.get("id");
        if (id == null) return null;
        if (!id.value().isTextual())
            throw new ValidationError(typeName, "id", null, "line " + line + ": " + typeName
                    + ".id must be a JSON string, got JSON " + ValueConverter.kindOf(id.value()));
        return id.value().textValue();
    }

    /** Every declared property in declaration order; data keys are checked in input order. */
    private static Map<String, Object> values(int line, String typeName, String kind, TypePlan plan, Shape s) {
        List<Property> properties = plan.properties();
        Object[] given = new Object[properties.size()];
        boolean[] present = new boolean[properties.size()];
        for (Map.Entry<String, Field> e : s.dataFields.entrySet()) {
            if (e.getKey().equals("id")) continue;
            Integer at = plan.positions().get(e.getKey());
            if (at == null)
                throw new ValidationError(typeName, e.getKey(), null, "line " + line + ": unknown property '"
                        + e.getKey() + "' for " + kind + " type " + typeName);
            Property p = properties.get(at);
            given[at] = ValueConverter.convert(p, e.getValue().value(), new ValueConverter.Site(line, typeName, p.name()));
            present[at] = true;
        }
        LinkedHashMap<String, Object> out = new LinkedHashMap<>(capacity(properties.size()));
        for (int i = 0; i < given.length; i++) {
            Property p = properties.get(i);
            out.put(p.name(), present[i] ? given[i]
                    : ValueConverter.convert(p, null, new ValueConverter.Site(line, typeName, p.name())));
        }
        return FrozenValues.adopt(out);
    }

    /** A hash map capacity that holds {@code entries} without resizing. */
    private static int capacity(int entries) {
        return (int) Math.ceil(entries / 0.75) + 1;
    }

    // ---- helpers ---------------------------------------------------------------------------------------

    private static boolean isJsonSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\r' || b == '\n';
    }

    private static int column(JsonLocation at) {
        return at == null || at.getColumnNr() < 1 ? 1 : at.getColumnNr();
    }

    /** Longest field path put in an error's subject; deeper paths end in an ellipsis. */
    private static final int MAX_PATH_CHARS = 120;

    /** Dotted path of the parser's position, e.g. {@code data.tags[2]}; empty at the top level. */
    static String path(JsonStreamContext ctx) {
        List<String> parts = new ArrayList<>();
        for (JsonStreamContext c = ctx; c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inArray()) parts.add("[" + Math.max(c.getCurrentIndex(), 0) + "]");
            else if (c.getCurrentName() != null) parts.add(c.getCurrentName());
        }
        StringBuilder out = new StringBuilder();
        for (int i = parts.size() - 1; i >= 0; i--) {
            String part = parts.get(i);
            if (out.length() + part.length() > MAX_PATH_CHARS) {
                return out.append('…').toString(); // a value nested a thousand deep would repeat [0] a thousand times
            }
            if (out.length() > 0 && !part.startsWith("[")) out.append('.');
            out.append(part);
        }
        return out.toString();
    }

    private static ParseError parseError(int line, int column, String subject, String message) {
        return new ParseError(SOURCE, line, column, subject, message);
    }
}
