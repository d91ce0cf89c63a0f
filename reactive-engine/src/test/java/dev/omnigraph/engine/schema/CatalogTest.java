package dev.omnigraph.engine.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

class CatalogTest {
    static final String SRC = """
            interface Named { name: String }
            node Person implements Named {
                email: String @key
                age: I32?
                big: U64
                small: U32?
                score: F32
                weight: F64?
                born: Date
                seen: DateTime?
                ok: Bool
                tags: [String]?
                nums: [I64]
                v: Vector(3)?
                mood: enum(happy, sad)
            }
            node Company { title: String }
            edge WorksAt: Person -> Company {
                since: Date?
                hours: [F32]?
            }
            edge Knows: Person -> Person
            """;

    private static Catalog catalog() {
        CompiledSchema s = SchemaCompiler.compile(SRC);
        return Catalog.build(SchemaIr.initial(s, SchemaIrTest.DOMAIN), s);
    }

    @Test
    void tableKeysAndIdentityDerivedPaths() {
        Catalog c = catalog();
        // types: Named=1, Company=2, Person=3, Knows=4, WorksAt=5; 18 properties (6..23); incarnations 24..27
        NodeTable person = c.node("Person").orElseThrow();
        assertThat(person.tableKey()).isEqualTo("node:Person");
        assertThat(person.typeId()).isEqualTo(3);
        assertThat(person.incarnationId()).isEqualTo(25);
        assertThat(person.datasetPath()).isEqualTo("nodes/0000000000000003-0000000000000019");
        EdgeTable worksAt = c.edge("WorksAt").orElseThrow();
        assertThat(worksAt.tableKey()).isEqualTo("edge:WorksAt");
        assertThat(worksAt.datasetPath()).isEqualTo("edges/0000000000000005-000000000000001b");
        assertThat(c.tables()).extracting(CatalogTable::tableKey)
                .containsExactly("node:Company", "node:Person", "edge:Knows", "edge:WorksAt");
        assertThat(c.table("edge:Knows")).containsInstanceOf(EdgeTable.class);
        assertThat(c.table("node:Nope")).isEmpty();
    }

    @Test
    void nodeArrowSchema() {
        NodeTable person = catalog().node("Person").orElseThrow();
        Schema schema = person.arrowSchema();
        assertThat(schema.getFields()).extracting(Field::getName).containsExactly(
                "id", "name", "email", "age", "big", "small", "score", "weight", "born", "seen", "ok", "tags", "nums", "v", "mood");
        Field id = schema.findField("id");
        assertThat(id.getType()).isEqualTo(ArrowType.Utf8.INSTANCE);
        assertThat(id.isNullable()).isFalse();
        assertThat(id.getMetadata()).isEqualTo(Map.of("lance-schema:unenforced-primary-key", "true"));

        assertField(schema, "name", ArrowType.Utf8.INSTANCE, false);
        assertField(schema, "age", new ArrowType.Int(32, true), true);
        assertField(schema, "big", new ArrowType.Int(64, false), false);
        assertField(schema, "small", new ArrowType.Int(32, false), true);
        assertField(schema, "score", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), false);
        assertField(schema, "weight", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), true);
        assertField(schema, "born", new ArrowType.Date(DateUnit.DAY), false);
        assertField(schema, "seen", new ArrowType.Date(DateUnit.MILLISECOND), true);
        assertField(schema, "ok", ArrowType.Bool.INSTANCE, false);
        assertField(schema, "mood", ArrowType.Utf8.INSTANCE, false);

        Field tags = schema.findField("tags");
        assertThat(tags.getType()).isEqualTo(ArrowType.List.INSTANCE);
        assertThat(tags.isNullable()).isTrue();
        assertThat(tags.getChildren()).singleElement().satisfies(item -> {
            assertThat(item.getName()).isEqualTo("item");
            assertThat(item.getType()).isEqualTo(ArrowType.Utf8.INSTANCE);
            assertThat(item.isNullable()).isTrue();
        });
        assertThat(schema.findField("nums").getChildren().get(0).getType()).isEqualTo(new ArrowType.Int(64, true));
        assertThat(schema.findField("nums").isNullable()).isFalse();

        Field v = schema.findField("v");
        assertThat(v.getType()).isEqualTo(new ArrowType.FixedSizeList(3));
        assertThat(v.isNullable()).isTrue();
        assertThat(v.getChildren()).singleElement().satisfies(item -> {
            assertThat(item.getName()).isEqualTo("item");
            assertThat(item.getType()).isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
            assertThat(item.isNullable()).isTrue();
        });

        // stable ids: Person's properties sorted by name get consecutive ids after Named.name=6, Company.title=7
        List<String> byName = List.of("age", "big", "born", "email", "mood", "name", "nums", "ok", "score", "seen",
                "small", "tags", "v", "weight");
        for (int i = 0; i < byName.size(); i++) {
            assertThat(schema.findField(byName.get(i)).getMetadata())
                    .isEqualTo(Map.of("omnigraph.stable_property_id", Integer.toString(8 + i)));
        }
        assertThat(person.propertyIds()).containsEntry("name", 13L);
    }

    @Test
    void edgeArrowSchema() {
        Schema schema = catalog().edge("WorksAt").orElseThrow().arrowSchema();
        assertThat(schema.getFields()).extracting(Field::getName).containsExactly("id", "src", "dst", "since", "hours");
        for (String system : List.of("id", "src", "dst")) {
            Field f = schema.findField(system);
            assertThat(f.getType()).isEqualTo(ArrowType.Utf8.INSTANCE);
            assertThat(f.isNullable()).isFalse();
        }
        assertThat(schema.findField("id").getMetadata()).containsEntry("lance-schema:unenforced-primary-key", "true");
        assertThat(schema.findField("src").getMetadata()).isEmpty();
        assertThat(schema.findField("dst").getMetadata()).isEmpty();
        assertField(schema, "since", new ArrowType.Date(DateUnit.DAY), true);
        assertThat(schema.findField("since").getMetadata()).isEqualTo(Map.of("omnigraph.stable_property_id", "23"));
        Field hours = schema.findField("hours");
        assertThat(hours.getType()).isEqualTo(ArrowType.List.INSTANCE);
        assertThat(hours.getChildren().get(0).getType()).isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
        assertThat(hours.getMetadata()).isEqualTo(Map.of("omnigraph.stable_property_id", "22"));

        Schema knows = catalog().edge("Knows").orElseThrow().arrowSchema();
        assertThat(knows.getFields()).extracting(Field::getName).containsExactly("id", "src", "dst");
    }

    @Test
    void catalogRejectsAnIrForAnotherSchema() {
        CompiledSchema s = SchemaCompiler.compile(SRC);
        SchemaIr ir = SchemaIr.initial(s, SchemaIrTest.DOMAIN);
        CompiledSchema other = SchemaCompiler.compile(SRC.replace("node Company { title: String }", "node Company { title: String\n x: I32 }"));
        assertThatThrownBy(() -> Catalog.build(ir, other))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("node Company");
        CompiledSchema fewer = SchemaCompiler.compile(SRC.replace("edge Knows: Person -> Person", ""));
        assertThatThrownBy(() -> Catalog.build(ir, fewer)).isInstanceOf(IllegalArgumentException.class);
    }

    private static void assertField(Schema schema, String name, ArrowType type, boolean nullable) {
        Field f = schema.findField(name);
        assertThat(f.getType()).as(name).isEqualTo(type);
        assertThat(f.isNullable()).as(name + " nullable").isEqualTo(nullable);
        assertThat(f.getChildren()).as(name + " children").isEmpty();
        assertThat(f.getMetadata()).as(name + " metadata").containsKey("omnigraph.stable_property_id");
    }
}
