package dev.omnigraph.engine.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.omnigraph.engine.schema.SchemaIr.ConstraintIr;
import dev.omnigraph.engine.schema.SchemaIr.FieldRef;
import dev.omnigraph.engine.schema.SchemaIr.PropertyIr;
import dev.omnigraph.engine.schema.SchemaIr.PropertyRef;
import java.util.List;
import org.junit.jupiter.api.Test;

class SchemaIrTest {
    static final String DOMAIN = "01HZY8Q4W5M3XKJ7T2V9C6B1DE";

    // Person is declared before Company and properties are not alphabetical, so declaration order
    // cannot accidentally produce the expected ids.
    static final String SMALL = """
            node Person implements Named {
                email: String @key
                age: I32?
            }
            edge WorksAt: Person -> Company { since: Date? }
            interface Named { name: String }
            node Company { title: String }
            edge Knows: Person -> Person
            """;

    @Test
    void identitiesFollowKindNameThenOwnerNameThenIncarnationOrder() {
        SchemaIr ir = SchemaIr.initial(SchemaCompiler.compile(SMALL), DOMAIN);
        // types: Interface < Node < Edge, by name within a kind
        assertThat(ir.interfaceIr("Named").orElseThrow().typeId()).isEqualTo(1);
        assertThat(ir.node("Company").orElseThrow().typeId()).isEqualTo(2);
        assertThat(ir.node("Person").orElseThrow().typeId()).isEqualTo(3);
        assertThat(ir.edge("Knows").orElseThrow().typeId()).isEqualTo(4);
        assertThat(ir.edge("WorksAt").orElseThrow().typeId()).isEqualTo(5);
        // properties by (owner type id, name)
        assertThat(ir.interfaceIr("Named").orElseThrow().properties()).extracting(PropertyIr::propertyId).containsExactly(6L);
        assertThat(ir.node("Company").orElseThrow().property("title").orElseThrow().propertyId()).isEqualTo(7);
        SchemaIr.NodeIr person = ir.node("Person").orElseThrow();
        assertThat(person.property("age").orElseThrow().propertyId()).isEqualTo(8);
        assertThat(person.property("email").orElseThrow().propertyId()).isEqualTo(9);
        assertThat(person.property("name").orElseThrow().propertyId()).isEqualTo(10);
        assertThat(ir.edge("WorksAt").orElseThrow().property("since").orElseThrow().propertyId()).isEqualTo(11);
        // incarnations by type id
        assertThat(ir.node("Company").orElseThrow().tableIncarnationId()).isEqualTo(12);
        assertThat(person.tableIncarnationId()).isEqualTo(13);
        assertThat(ir.edge("Knows").orElseThrow().tableIncarnationId()).isEqualTo(14);
        assertThat(ir.edge("WorksAt").orElseThrow().tableIncarnationId()).isEqualTo(15);
        assertThat(ir.nextIdentityId()).isEqualTo(16);
        assertThat(ir.schemaIdentityDomain()).isEqualTo(DOMAIN);
    }

    @Test
    void irListsPropertiesByIdAndResolvesReferences() {
        SchemaIr ir = SchemaIr.initial(SchemaCompiler.compile(SMALL), DOMAIN);
        SchemaIr.NodeIr person = ir.node("Person").orElseThrow();
        assertThat(person.properties()).extracting(PropertyIr::name).containsExactly("age", "email", "name");
        assertThat(person.implementsTypes()).containsExactly(new SchemaIr.TypeRef(1, "Named"));
        assertThat(person.property("name").orElseThrow().satisfiesInterfaceProperties())
                .containsExactly(new PropertyRef(1, "Named", 6, "name"));
        assertThat(person.constraints()).containsExactly(new ConstraintIr.Key(List.of(
                new FieldRef.PropertyField(new PropertyRef(3, "Person", 9, "email")))));
        SchemaIr.EdgeIr worksAt = ir.edge("WorksAt").orElseThrow();
        assertThat(worksAt.fromType()).isEqualTo(new SchemaIr.TypeRef(3, "Person"));
        assertThat(worksAt.toType()).isEqualTo(new SchemaIr.TypeRef(2, "Company"));
        assertThat(ir.nodes()).extracting(SchemaIr.NodeIr::name).containsExactly("Company", "Person");
    }

    @Test
    void jsonHasTheDocumentedSnakeCaseShape() throws Exception {
        SchemaIr ir = SchemaIr.initial(SchemaCompiler.compile(SMALL), DOMAIN);
        JsonNode root = new ObjectMapper().readTree(ir.toJson());
        assertThat(root.get("ir_version").asInt()).isEqualTo(2);
        assertThat(root.get("schema_identity_domain").asText()).isEqualTo(DOMAIN);
        assertThat(root.get("next_identity_id").asLong()).isEqualTo(16);
        JsonNode person = root.get("nodes").get(1);
        assertThat(person.get("name").asText()).isEqualTo("Person");
        assertThat(person.get("type_id").asLong()).isEqualTo(3);
        assertThat(person.get("table_incarnation_id").asLong()).isEqualTo(13);
        assertThat(person.get("implements").get(0).get("type_name").asText()).isEqualTo("Named");
        JsonNode age = person.get("properties").get(0);
        assertThat(age.get("property_id").asLong()).isEqualTo(8);
        assertThat(age.get("prop_type").toString())
                .isEqualTo("{\"scalar\":\"I32\",\"nullable\":true,\"list\":false,\"enum_values\":null}");
        assertThat(person.get("constraints").get(0).get("kind").asText()).isEqualTo("key");
        JsonNode edge = root.get("edges").get(1);
        assertThat(edge.get("from_type").get("type_id").asLong()).isEqualTo(3);
        assertThat(edge.get("cardinality").toString()).isEqualTo("{\"min\":0,\"max\":null}");
    }

    @Test
    void jsonRoundTripsEveryFeature() {
        SchemaIr ir = SchemaIr.initial(SchemaCompiler.compile(SchemaCompilerTest.FULL), DOMAIN);
        String json = ir.toJson();
        SchemaIr back = SchemaIr.fromJson(json);
        assertThat(back).isEqualTo(ir);
        assertThat(back.toJson()).isEqualTo(json);
        assertThat(back.irHash()).isEqualTo(ir.irHash());
        // spot-check the harder encodings survived
        SchemaIr.NodeIr person = back.node("Person").orElseThrow();
        assertThat(person.property("embedding").orElseThrow().type()).isEqualTo(new PropertyType.VectorOf(3));
        assertThat(person.property("embedding").orElseThrow().embedSource().model()).isEqualTo("text-embedding-3-small");
        assertThat(person.property("status").orElseThrow().type()).isInstanceOf(PropertyType.EnumOf.class);
        assertThat(person.property("flags").orElseThrow().type()).isEqualTo(new PropertyType.ListOf(ScalarKind.BOOL));
        assertThat(person.constraints()).contains(new ConstraintIr.Range(
                new FieldRef.PropertyField(new PropertyRef(person.typeId(), "Person",
                        person.property("count").orElseThrow().propertyId(), "count")),
                null, new RangeBound.IntBound(-1)));
        SchemaIr.EdgeIr worksAt = back.edge("WorksAt").orElseThrow();
        assertThat(worksAt.constraints()).contains(new ConstraintIr.Unique(List.of(
                new FieldRef.SystemField(worksAt.typeId(), "WorksAt", worksAt.tableIncarnationId(), SchemaIr.SystemRole.SRC),
                new FieldRef.SystemField(worksAt.typeId(), "WorksAt", worksAt.tableIncarnationId(), SchemaIr.SystemRole.DST))));
        assertThat(worksAt.cardinality().max()).hasValue(1);
    }

    @Test
    void malformedIrIsRejected() {
        String good = SchemaIr.initial(SchemaCompiler.compile(SMALL), DOMAIN).toJson();
        assertThatThrownBy(() -> SchemaIr.fromJson(good.replace("\"ir_version\":2", "\"ir_version\":3")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ir_version");
        assertThatThrownBy(() -> SchemaIr.fromJson(good.replace(DOMAIN, "not-a-ulid")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ULID");
        // an id at or above the counter's high-water mark would be re-issued later
        assertThatThrownBy(() -> SchemaIr.fromJson(good.replace("\"next_identity_id\":16", "\"next_identity_id\":15")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("next_identity_id");
        assertThatThrownBy(() -> SchemaIr.initial(SchemaCompiler.compile(SMALL), "01hzy8q4w5m3xkj7t2v9c6b1de"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void freshDomainIsACanonicalUlid() {
        SchemaIr ir = SchemaIr.initial(SchemaCompiler.compile(SMALL));
        assertThat(dev.omnigraph.storage.Ulid.isValid(ir.schemaIdentityDomain())).isTrue();
        assertThat(ir.schemaIdentityDomain()).isNotEqualTo(SchemaIr.initial(SchemaCompiler.compile(SMALL)).schemaIdentityDomain());
    }

    // ---- hashes ----

    static final String REORDERED = """
            /* same schema, declarations shuffled, extra comments and whitespace */
            interface   Named{name:String}
            edge Knows: Person -> Person   // no body
            node Company {
              title: String
            }
            node Person implements Named { age: I32?   email: String @key }
            edge WorksAt: Person -> Company {
                // comment inside a body
                since: Date?
            }
            """;

    @Test
    void shapeHashIgnoresOrderWhitespaceAndComments() {
        CompiledSchema a = SchemaCompiler.compile(SMALL);
        CompiledSchema b = SchemaCompiler.compile(REORDERED);
        assertThat(a.shapeHash()).matches("[0-9a-f]{64}");
        assertThat(b.shapeHash()).isEqualTo(a.shapeHash());
        assertThat(SchemaShapeHash.canonicalJson(b)).isEqualTo(SchemaShapeHash.canonicalJson(a));
        // the IR of a fresh graph is order-independent too (ids follow names, not positions)
        assertThat(SchemaIr.initial(b, DOMAIN).irHash()).isEqualTo(SchemaIr.initial(a, DOMAIN).irHash());
    }

    @Test
    void shapeHashChangesWithAnyShapeChange() {
        String base = SchemaCompiler.compile(SMALL).shapeHash();
        assertThat(SchemaCompiler.compile(SMALL.replace("age: I32?", "age: I64?")).shapeHash()).isNotEqualTo(base);
        assertThat(SchemaCompiler.compile(SMALL.replace("age: I32?", "age: I32")).shapeHash()).isNotEqualTo(base);
        assertThat(SchemaCompiler.compile(SMALL.replace("title: String", "title: String @unique")).shapeHash()).isNotEqualTo(base);
        assertThat(SchemaCompiler.compile(SMALL.replace("edge Knows: Person -> Person", "edge Knows: Person -> Person @card(0..5)"))
                .shapeHash()).isNotEqualTo(base);
        assertThat(SchemaCompiler.compile(SMALL.replace("node Company {", "node Company @description(\"x\") {"))
                .shapeHash()).isNotEqualTo(base);
    }

    @Test
    void irHashDependsOnDomainAndIds() {
        CompiledSchema s = SchemaCompiler.compile(SMALL);
        String h = SchemaIr.initial(s, DOMAIN).irHash();
        assertThat(h).matches("[0-9a-f]{64}").isEqualTo(SchemaIr.initial(s, DOMAIN).irHash());
        assertThat(SchemaIr.initial(s, "01HZY8Q4W5M3XKJ7T2V9C6B1DF").irHash()).isNotEqualTo(h);
        assertThat(SchemaShapeHash.sha256Hex(SchemaIr.initial(s, DOMAIN).toJson())).isEqualTo(h);
    }
}
