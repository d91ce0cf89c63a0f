package dev.omnigraph.engine.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;

/**
 * {@code schema_shape_hash}: SHA-256 over a canonical JSON rendering of the identity-free shape.
 * Canonical means: types sorted by (kind, name), properties by name, annotations and constraints by their
 * rendering, enum values sorted; so whitespace, comments and declaration order do not matter, while any
 * change of a type, nullability, constraint or annotation does. Column order is deliberately not part of
 * the shape: existing datasets keep their physical order and resolve columns by name / stable id.
 */
public final class SchemaShapeHash {
    static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    /** Bumped whenever the rendering below changes, so old and new hashes can never collide. */
    private static final int SHAPE_VERSION = 1;

    private SchemaShapeHash() {}

    public static String hash(CompiledSchema schema) {
        return sha256Hex(canonicalJson(schema));
    }

    /** The exact text that is hashed; exposed for diagnostics and tests. */
    public static String canonicalJson(CompiledSchema schema) {
        ObjectNode root = F.objectNode();
        root.put("shape_version", SHAPE_VERSION);
        root.set("interfaces", sortedArray(schema.interfaces(), InterfaceType::name, t -> {
            ObjectNode o = F.objectNode();
            o.put("name", t.name());
            o.set("properties", properties(t.properties()));
            return o;
        }));
        root.set("nodes", sortedArray(schema.nodes(), NodeType::name, t -> {
            ObjectNode o = F.objectNode();
            o.put("name", t.name());
            o.set("annotations", annotations(t.annotations()));
            ArrayNode impl = o.putArray("implements");
            t.implementsTypes().stream().sorted().forEach(impl::add);
            o.set("properties", properties(t.properties()));
            o.set("constraints", constraints(t.constraints()));
            return o;
        }));
        root.set("edges", sortedArray(schema.edges(), EdgeType::name, t -> {
            ObjectNode o = F.objectNode();
            o.put("name", t.name());
            o.put("from", t.fromType());
            o.put("to", t.toType());
            ObjectNode card = o.putObject("cardinality");
            card.put("min", t.cardinality().min());
            if (t.cardinality().max().isPresent()) card.put("max", t.cardinality().max().getAsLong());
            else card.putNull("max");
            o.set("annotations", annotations(t.annotations()));
            o.set("properties", properties(t.properties()));
            o.set("constraints", constraints(t.constraints()));
            return o;
        }));
        try {
            return MAPPER.writeValueAsString(root);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot render schema shape", e);
        }
    }

    private static ArrayNode properties(List<Property> props) {
        return sortedArray(props, Property::name, p -> {
            ObjectNode o = F.objectNode();
            o.put("name", p.name());
            o.put("type", p.type().spelling());
            o.put("nullable", p.nullable());
            o.set("annotations", annotations(p.annotations()));
            o.put("declared_directly", p.declaredDirectly());
            ArrayNode origins = o.putArray("interfaces");
            p.interfaceOrigins().stream().sorted().forEach(origins::add);
            return o;
        });
    }

    private static ArrayNode annotations(List<Annotation> annotations) {
        return sortedByRendering(annotations, SchemaShapeHash::annotation);
    }

    static ObjectNode annotation(Annotation a) {
        ObjectNode o = F.objectNode();
        o.put("name", a.name());
        if (a.value() == null) o.putNull("value");
        else o.put("value", a.value());
        if (!a.kwargs().isEmpty()) {
            ObjectNode kw = o.putObject("kwargs");
            a.kwargs().forEach(kw::put); // already sorted
        }
        return o;
    }

    private static ArrayNode constraints(List<Constraint> constraints) {
        return sortedByRendering(constraints, c -> {
            ObjectNode o = F.objectNode();
            if (c instanceof Constraint.Range r) {
                o.put("kind", "range");
                o.put("property", r.property());
                o.set("min", bound(r.min()));
                o.set("max", bound(r.max()));
            } else if (c instanceof Constraint.Check k) {
                o.put("kind", "check");
                o.put("property", k.property());
                o.put("pattern", k.pattern());
            } else {
                o.put("kind", constraintKind(c));
                ArrayNode names = o.putArray("properties");
                c.properties().forEach(names::add);
            }
            return o;
        });
    }

    static String constraintKind(Constraint c) {
        if (c instanceof Constraint.Key) return "key";
        if (c instanceof Constraint.Unique) return "unique";
        if (c instanceof Constraint.Index) return "index";
        if (c instanceof Constraint.Range) return "range";
        return "check";
    }

    static JsonNode bound(RangeBound b) {
        if (b == null) return F.nullNode();
        ObjectNode o = F.objectNode();
        if (b instanceof RangeBound.IntBound i) o.put("Integer", i.value());
        else o.put("Float", ((RangeBound.FloatBound) b).value());
        return o;
    }

    private static <T> ArrayNode sortedArray(List<T> items, Function<T, String> key, Function<T, JsonNode> render) {
        ArrayNode out = F.arrayNode();
        items.stream().sorted(Comparator.comparing(key)).map(render).forEach(out::add);
        return out;
    }

    private static <T> ArrayNode sortedByRendering(List<T> items, Function<T, JsonNode> render) {
        List<JsonNode> rendered = new ArrayList<>(items.stream().map(render).toList());
        rendered.sort(Comparator.comparing(JsonNode::toString));
        ArrayNode out = F.arrayNode();
        rendered.forEach(out::add);
        return out;
    }

    static String sha256Hex(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is mandatory in every JRE", e);
        }
    }
}
