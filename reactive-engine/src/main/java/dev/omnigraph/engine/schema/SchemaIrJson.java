package dev.omnigraph.engine.schema;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.schema.SchemaIr.ConstraintIr;
import dev.omnigraph.engine.schema.SchemaIr.EdgeIr;
import dev.omnigraph.engine.schema.SchemaIr.EmbedSource;
import dev.omnigraph.engine.schema.SchemaIr.FieldRef;
import dev.omnigraph.engine.schema.SchemaIr.InterfaceIr;
import dev.omnigraph.engine.schema.SchemaIr.NodeIr;
import dev.omnigraph.engine.schema.SchemaIr.PropertyIr;
import dev.omnigraph.engine.schema.SchemaIr.PropertyRef;
import dev.omnigraph.engine.schema.SchemaIr.TypeRef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * (De)serialises {@link SchemaIr} as {@code _schema.ir.json}. Written by hand on Jackson's tree model so the
 * field order (and therefore {@code schema_ir_hash}) is fixed by this file, not by reflection. Field names
 * are snake_case; {@code prop_type} is {@code {scalar, nullable, list, enum_values}} with
 * {@code scalar} either a base type name or {@code {"Vector": dim}}.
 */
final class SchemaIrJson {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private SchemaIrJson() {}

    // ---- writing ----

    static String write(SchemaIr ir) {
        ObjectNode root = F.objectNode();
        root.put("ir_version", ir.irVersion());
        root.put("schema_identity_domain", ir.schemaIdentityDomain());
        root.put("next_identity_id", ir.nextIdentityId());
        ArrayNode interfaces = root.putArray("interfaces");
        for (InterfaceIr t : ir.interfaces()) {
            ObjectNode o = interfaces.addObject();
            o.put("name", t.name());
            o.put("type_id", t.typeId());
            o.set("properties", array(t.properties(), SchemaIrJson::property));
        }
        ArrayNode nodes = root.putArray("nodes");
        for (NodeIr t : ir.nodes()) {
            ObjectNode o = nodes.addObject();
            o.put("name", t.name());
            o.put("type_id", t.typeId());
            o.put("table_incarnation_id", t.tableIncarnationId());
            o.set("annotations", array(t.annotations(), SchemaShapeHash::annotation));
            o.set("implements", array(t.implementsTypes(), SchemaIrJson::typeRef));
            o.set("properties", array(t.properties(), SchemaIrJson::property));
            o.set("constraints", array(t.constraints(), SchemaIrJson::constraint));
        }
        ArrayNode edges = root.putArray("edges");
        for (EdgeIr t : ir.edges()) {
            ObjectNode o = edges.addObject();
            o.put("name", t.name());
            o.put("type_id", t.typeId());
            o.put("table_incarnation_id", t.tableIncarnationId());
            o.set("from_type", typeRef(t.fromType()));
            o.set("to_type", typeRef(t.toType()));
            ObjectNode card = o.putObject("cardinality");
            card.put("min", t.cardinality().min());
            if (t.cardinality().max().isPresent()) card.put("max", t.cardinality().max().getAsLong());
            else card.putNull("max");
            o.set("annotations", array(t.annotations(), SchemaShapeHash::annotation));
            o.set("properties", array(t.properties(), SchemaIrJson::property));
            o.set("constraints", array(t.constraints(), SchemaIrJson::constraint));
        }
        try {
            return SchemaShapeHash.MAPPER.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render schema IR", e);
        }
    }

    private static ObjectNode property(PropertyIr p) {
        ObjectNode o = F.objectNode();
        o.put("name", p.name());
        o.put("property_id", p.propertyId());
        ObjectNode type = o.putObject("prop_type");
        PropertyType t = p.type();
        if (t instanceof PropertyType.VectorOf v) type.putObject("scalar").put("Vector", v.dim());
        else type.put("scalar", t instanceof PropertyType.Scalar s ? s.kind().spelling()
                : t instanceof PropertyType.ListOf l ? l.element().spelling() : ScalarKind.STRING.spelling());
        type.put("nullable", p.nullable());
        type.put("list", t instanceof PropertyType.ListOf);
        if (t instanceof PropertyType.EnumOf e) e.values().forEach(type.putArray("enum_values")::add);
        else type.putNull("enum_values");
        o.set("annotations", array(p.annotations(), SchemaShapeHash::annotation));
        if (p.embedSource() == null) {
            o.putNull("embed_source");
        } else {
            ObjectNode e = o.putObject("embed_source");
            e.set("source", propertyRef(p.embedSource().source()));
            if (p.embedSource().model() == null) e.putNull("model");
            else e.put("model", p.embedSource().model());
        }
        o.put("declared_directly", p.declaredDirectly());
        o.set("satisfies_interface_properties", array(p.satisfiesInterfaceProperties(), SchemaIrJson::propertyRef));
        return o;
    }

    private static ObjectNode typeRef(TypeRef r) {
        ObjectNode o = F.objectNode();
        o.put("type_id", r.typeId());
        o.put("type_name", r.typeName());
        return o;
    }

    private static ObjectNode propertyRef(PropertyRef r) {
        ObjectNode o = F.objectNode();
        o.put("owner_type_id", r.ownerTypeId());
        o.put("owner_type_name", r.ownerTypeName());
        o.put("property_id", r.propertyId());
        o.put("property_name", r.propertyName());
        return o;
    }

    private static ObjectNode fieldRef(FieldRef f) {
        if (f instanceof FieldRef.PropertyField p) {
            ObjectNode o = F.objectNode();
            o.put("kind", "property");
            o.setAll(propertyRef(p.property()));
            return o;
        }
        FieldRef.SystemField s = (FieldRef.SystemField) f;
        ObjectNode o = F.objectNode();
        o.put("kind", "system");
        o.put("stable_table_id", s.stableTableId());
        o.put("table_type_name", s.tableTypeName());
        o.put("table_incarnation_id", s.tableIncarnationId());
        o.put("role", s.role().name().toLowerCase(Locale.ROOT));
        return o;
    }

    private static ObjectNode constraint(ConstraintIr c) {
        ObjectNode o = F.objectNode();
        if (c instanceof ConstraintIr.Range r) {
            o.put("kind", "range");
            o.set("field", fieldRef(r.field()));
            o.set("min", SchemaShapeHash.bound(r.min()));
            o.set("max", SchemaShapeHash.bound(r.max()));
        } else if (c instanceof ConstraintIr.Check k) {
            o.put("kind", "check");
            o.set("field", fieldRef(k.field()));
            o.put("pattern", k.pattern());
        } else {
            List<FieldRef> fields = c instanceof ConstraintIr.Key k ? k.fields()
                    : c instanceof ConstraintIr.Unique u ? u.fields() : ((ConstraintIr.Index) c).fields();
            o.put("kind", c instanceof ConstraintIr.Key ? "key" : c instanceof ConstraintIr.Unique ? "unique" : "index");
            o.set("fields", array(fields, SchemaIrJson::fieldRef));
        }
        return o;
    }

    private static <T> ArrayNode array(List<T> items, Function<T, ? extends JsonNode> render) {
        ArrayNode out = F.arrayNode();
        items.forEach(i -> out.add(render.apply(i)));
        return out;
    }

    // ---- reading ----

    /** @throws IllegalArgumentException when the text is not a well-formed v2 schema IR */
    static SchemaIr read(String json) {
        JsonNode root;
        try {
            root = SchemaShapeHash.MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("schema IR is not valid JSON: " + e.getOriginalMessage(), e);
        }
        if (root == null || !root.isObject()) throw new IllegalArgumentException("schema IR must be a JSON object");
        int version = (int) longField(root, "ir_version");
        if (version != SchemaIr.IR_VERSION) throw new IllegalArgumentException("unsupported ir_version " + version);
        List<InterfaceIr> interfaces = list(root, "interfaces", o -> new InterfaceIr(
                text(o, "name"), longField(o, "type_id"), list(o, "properties", SchemaIrJson::readProperty)));
        List<NodeIr> nodes = list(root, "nodes", o -> new NodeIr(text(o, "name"), longField(o, "type_id"),
                longField(o, "table_incarnation_id"), list(o, "annotations", SchemaIrJson::readAnnotation),
                list(o, "implements", SchemaIrJson::readTypeRef), list(o, "properties", SchemaIrJson::readProperty),
                list(o, "constraints", SchemaIrJson::readConstraint)));
        List<EdgeIr> edges = list(root, "edges", o -> {
            JsonNode card = field(o, "cardinality");
            JsonNode max = field(card, "max");
            Cardinality cardinality = new Cardinality(longField(card, "min"),
                    max.isNull() ? OptionalLong.empty() : OptionalLong.of(asLong(max, "max")));
            return new EdgeIr(text(o, "name"), longField(o, "type_id"), longField(o, "table_incarnation_id"),
                    readTypeRef(field(o, "from_type")), readTypeRef(field(o, "to_type")), cardinality,
                    list(o, "annotations", SchemaIrJson::readAnnotation), list(o, "properties", SchemaIrJson::readProperty),
                    list(o, "constraints", SchemaIrJson::readConstraint));
        });
        return new SchemaIr(version, text(root, "schema_identity_domain"), longField(root, "next_identity_id"),
                interfaces, nodes, edges);
    }

    private static PropertyIr readProperty(JsonNode o) {
        JsonNode type = field(o, "prop_type");
        JsonNode scalar = field(type, "scalar");
        boolean list = field(type, "list").asBoolean();
        JsonNode enumValues = field(type, "enum_values");
        PropertyType t;
        if (scalar.isObject()) {
            t = new PropertyType.VectorOf((int) longField(scalar, "Vector"));
        } else {
            ScalarKind kind = ScalarKind.fromSpelling(scalar.asText())
                    .orElseThrow(() -> new IllegalArgumentException("unknown scalar type " + scalar));
            if (!enumValues.isNull()) {
                List<String> values = new ArrayList<>();
                enumValues.forEach(v -> values.add(v.asText()));
                t = new PropertyType.EnumOf(values);
            } else {
                t = list ? new PropertyType.ListOf(kind) : new PropertyType.Scalar(kind);
            }
        }
        JsonNode embed = field(o, "embed_source");
        EmbedSource embedSource = embed.isNull() ? null : new EmbedSource(readPropertyRef(field(embed, "source")),
                field(embed, "model").isNull() ? null : text(embed, "model"));
        return new PropertyIr(text(o, "name"), longField(o, "property_id"), t, field(type, "nullable").asBoolean(),
                list(o, "annotations", SchemaIrJson::readAnnotation), embedSource,
                field(o, "declared_directly").asBoolean(),
                list(o, "satisfies_interface_properties", SchemaIrJson::readPropertyRef));
    }

    private static Annotation readAnnotation(JsonNode o) {
        JsonNode value = field(o, "value");
        Map<String, String> kwargs = new LinkedHashMap<>();
        JsonNode kw = o.get("kwargs");
        if (kw != null) kw.properties().forEach(e -> kwargs.put(e.getKey(), e.getValue().asText()));
        return new Annotation(text(o, "name"), value.isNull() ? null : value.asText(), kwargs);
    }

    private static TypeRef readTypeRef(JsonNode o) {
        return new TypeRef(longField(o, "type_id"), text(o, "type_name"));
    }

    private static PropertyRef readPropertyRef(JsonNode o) {
        return new PropertyRef(longField(o, "owner_type_id"), text(o, "owner_type_name"),
                longField(o, "property_id"), text(o, "property_name"));
    }

    private static FieldRef readFieldRef(JsonNode o) {
        String kind = text(o, "kind");
        return switch (kind) {
            case "property" -> new FieldRef.PropertyField(readPropertyRef(o));
            case "system" -> new FieldRef.SystemField(longField(o, "stable_table_id"), text(o, "table_type_name"),
                    longField(o, "table_incarnation_id"),
                    SchemaIr.SystemRole.valueOf(text(o, "role").toUpperCase(Locale.ROOT)));
            default -> throw new IllegalArgumentException("unknown field kind " + kind);
        };
    }

    private static ConstraintIr readConstraint(JsonNode o) {
        String kind = text(o, "kind");
        return switch (kind) {
            case "key" -> new ConstraintIr.Key(list(o, "fields", SchemaIrJson::readFieldRef));
            case "unique" -> new ConstraintIr.Unique(list(o, "fields", SchemaIrJson::readFieldRef));
            case "index" -> new ConstraintIr.Index(list(o, "fields", SchemaIrJson::readFieldRef));
            case "range" -> new ConstraintIr.Range(readFieldRef(field(o, "field")),
                    readBound(field(o, "min")), readBound(field(o, "max")));
            case "check" -> new ConstraintIr.Check(readFieldRef(field(o, "field")), text(o, "pattern"));
            default -> throw new IllegalArgumentException("unknown constraint kind " + kind);
        };
    }

    private static RangeBound readBound(JsonNode o) {
        if (o.isNull()) return null;
        if (o.has("Integer")) {
            JsonNode i = o.get("Integer");
            if (!i.isIntegralNumber() || !i.canConvertToLong())
                throw new IllegalArgumentException("schema IR: integer range bound out of range");
            return new RangeBound.IntBound(i.longValue()); // bounds are signed, unlike ids
        }
        JsonNode f = field(o, "Float");
        if (!f.isNumber()) throw new IllegalArgumentException("range bound must be a number");
        return new RangeBound.FloatBound(f.doubleValue());
    }

    private static JsonNode field(JsonNode o, String name) {
        JsonNode v = o.get(name);
        if (v == null) throw new IllegalArgumentException("schema IR: missing field '" + name + "'");
        return v;
    }

    private static String text(JsonNode o, String name) {
        JsonNode v = field(o, name);
        if (!v.isTextual()) throw new IllegalArgumentException("schema IR: field '" + name + "' must be a string");
        return v.asText();
    }

    private static long longField(JsonNode o, String name) {
        return asLong(field(o, name), name);
    }

    private static long asLong(JsonNode v, String name) {
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < 0)
            throw new IllegalArgumentException("schema IR: field '" + name + "' must be a non-negative integer");
        return v.longValue();
    }

    private static <T> List<T> list(JsonNode o, String name, Function<JsonNode, T> read) {
        JsonNode v = field(o, name);
        if (!v.isArray()) throw new IllegalArgumentException("schema IR: field '" + name + "' must be an array");
        List<T> out = new ArrayList<>();
        v.forEach(e -> out.add(read.apply(e)));
        return out;
    }
}
