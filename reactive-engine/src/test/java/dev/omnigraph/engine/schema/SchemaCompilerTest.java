package dev.omnigraph.engine.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Every valid form of languages.md §2, checked against the compiled model. */
class SchemaCompilerTest {

    static final String FULL = """
            // line comment at the top
            /* a block comment
               spanning lines */
            interface Named {
                name: String @description("display name")
                tags: [String]?
            }

            interface Aged { age: I32? }

            node Person @description("A human") @instruction("Be nice") implements Named, Aged {
                email: String @unique
                score: F64? @index
                born: Date
                seen: DateTime?
                flags: [Bool]
                big: U64
                small: U32?
                count: I64
                ratio: F32
                active: Bool
                status: enum(pending, in-progress, done, done, 2nd)
                bio: String?
                embedding: Vector(3)? @embed("bio", model="text-embedding-3-small")
                nick: String? @rename_from("nickname") @my_custom(foo, level=3, on=true)
                @key(email)
                @range(age, 0..150)
                @range(score, -1.5..)
                @range(count, ..-1)
                @check(email, "^[^@]+@[^@]+$")
                @index(name, born)
                @unique(big, small)
            }

            node Company @rename_from("Org") { name: String @key }

            edge WorksAt: Person -> Company @card(0..1) @description("employment") {
                since: Date?
                role: String @index
                @unique(src, dst)
            }
            edge Knows: Person -> Person
            edge Owns: Person -> Company @card(1..) {}
            """;

    @Test
    void compilesEveryDeclarationKind() {
        CompiledSchema s = SchemaCompiler.compile(FULL);
        assertThat(s.interfaces()).extracting(InterfaceType::name).containsExactly("Named", "Aged");
        assertThat(s.nodes()).extracting(NodeType::name).containsExactly("Person", "Company");
        assertThat(s.edges()).extracting(EdgeType::name).containsExactly("WorksAt", "Knows", "Owns");
        assertThat(s.interfaceType("Named").orElseThrow().properties())
                .containsExactly(
                        new Property("name", PropertyType.scalar(ScalarKind.STRING), false,
                                List.of(new Annotation("description", "display name")), true, List.of()),
                        new Property("tags", new PropertyType.ListOf(ScalarKind.STRING), true));
    }

    @Test
    void nodeExpandsInterfacePropertiesFirstAndKeepsDeclarationOrder() {
        NodeType person = SchemaCompiler.compile(FULL).node("Person").orElseThrow();
        assertThat(person.implementsTypes()).containsExactly("Named", "Aged");
        assertThat(person.properties()).extracting(Property::name).containsExactly(
                "name", "tags", "age", "email", "score", "born", "seen", "flags", "big", "small", "count",
                "ratio", "active", "status", "bio", "embedding", "nick");
        Property name = person.property("name").orElseThrow();
        assertThat(name.declaredDirectly()).isFalse();
        assertThat(name.interfaceOrigins()).containsExactly("Named");
        assertThat(person.property("email").orElseThrow().declaredDirectly()).isTrue();
        assertThat(person.annotations()).containsExactly(
                new Annotation("description", "A human"), new Annotation("instruction", "Be nice"));
    }

    @Test
    void everyScalarListVectorAndEnumTypeIsRecognised() {
        NodeType p = SchemaCompiler.compile(FULL).node("Person").orElseThrow();
        assertThat(p.property("score").orElseThrow()).satisfies(q -> {
            assertThat(q.type()).isEqualTo(PropertyType.scalar(ScalarKind.F64));
            assertThat(q.nullable()).isTrue();
        });
        assertThat(p.property("born").orElseThrow().type()).isEqualTo(PropertyType.scalar(ScalarKind.DATE));
        assertThat(p.property("seen").orElseThrow().type()).isEqualTo(PropertyType.scalar(ScalarKind.DATETIME));
        assertThat(p.property("flags").orElseThrow().type()).isEqualTo(new PropertyType.ListOf(ScalarKind.BOOL));
        assertThat(p.property("big").orElseThrow().type()).isEqualTo(PropertyType.scalar(ScalarKind.U64));
        assertThat(p.property("small").orElseThrow().typeSpelling()).isEqualTo("U32?");
        assertThat(p.property("count").orElseThrow().type()).isEqualTo(PropertyType.scalar(ScalarKind.I64));
        assertThat(p.property("ratio").orElseThrow().type()).isEqualTo(PropertyType.scalar(ScalarKind.F32));
        assertThat(p.property("active").orElseThrow().type()).isEqualTo(PropertyType.scalar(ScalarKind.BOOL));
        assertThat(p.property("age").orElseThrow().typeSpelling()).isEqualTo("I32?");
        // enum values: sorted (byte order) and de-duplicated, '-' and leading digits allowed
        assertThat(p.property("status").orElseThrow().type())
                .isEqualTo(new PropertyType.EnumOf(List.of("2nd", "done", "in-progress", "pending")));
        Property embedding = p.property("embedding").orElseThrow();
        assertThat(embedding.type()).isEqualTo(new PropertyType.VectorOf(3));
        assertThat(embedding.nullable()).isTrue();
        assertThat(embedding.embed()).contains(new Property.Embed("bio", "text-embedding-3-small"));
    }

    @Test
    void propertyLevelConstraintsDesugarAndBodyConstraintsAreKept() {
        NodeType p = SchemaCompiler.compile(FULL).node("Person").orElseThrow();
        assertThat(p.constraints()).containsExactly(
                new Constraint.Unique(List.of("email")),
                new Constraint.Index(List.of("score")),
                new Constraint.Key(List.of("email")),
                new Constraint.Range("age", new RangeBound.IntBound(0), new RangeBound.IntBound(150)),
                new Constraint.Range("score", new RangeBound.FloatBound(-1.5), null),
                new Constraint.Range("count", null, new RangeBound.IntBound(-1)),
                new Constraint.Check("email", "^[^@]+@[^@]+$"),
                new Constraint.Index(List.of("name", "born")),
                new Constraint.Unique(List.of("big", "small")));
        assertThat(p.key()).contains(new Constraint.Key(List.of("email")));
        // desugared annotations are not kept as metadata
        assertThat(p.property("email").orElseThrow().annotations()).isEmpty();
        NodeType company = SchemaCompiler.compile(FULL).node("Company").orElseThrow();
        assertThat(company.key()).contains(new Constraint.Key(List.of("name")));
        assertThat(company.annotations()).containsExactly(new Annotation("rename_from", "Org"));
    }

    @Test
    void freeAnnotationsKeepTheirArguments() {
        Property nick = SchemaCompiler.compile(FULL).node("Person").orElseThrow().property("nick").orElseThrow();
        assertThat(nick.annotations()).containsExactly(
                new Annotation("rename_from", "nickname"),
                new Annotation("my_custom", "foo", Map.of("level", "3", "on", "true")));
    }

    @Test
    void edgesCarryEndpointsCardinalityAndBodies() {
        CompiledSchema s = SchemaCompiler.compile(FULL);
        EdgeType worksAt = s.edge("WorksAt").orElseThrow();
        assertThat(worksAt.fromType()).isEqualTo("Person");
        assertThat(worksAt.toType()).isEqualTo("Company");
        assertThat(worksAt.cardinality()).isEqualTo(new Cardinality(0, OptionalLong.of(1)));
        assertThat(worksAt.annotations()).containsExactly(new Annotation("description", "employment"));
        assertThat(worksAt.properties()).extracting(Property::typeSpelling).containsExactly("Date?", "String");
        assertThat(worksAt.constraints()).containsExactly(
                new Constraint.Index(List.of("role")), new Constraint.Unique(List.of("src", "dst")));

        EdgeType knows = s.edge("Knows").orElseThrow();
        assertThat(knows.cardinality().isDefault()).isTrue();
        assertThat(knows.properties()).isEmpty();
        assertThat(knows.fromType()).isEqualTo("Person");
        assertThat(knows.toType()).isEqualTo("Person");

        EdgeType owns = s.edge("Owns").orElseThrow();
        assertThat(owns.cardinality().min()).isEqualTo(1);
        assertThat(owns.cardinality().max()).isEmpty();
    }

    @Test
    void stringEscapesDecodeExactlyTheFiveForms() {
        String src = "node A @description(\"q\\\"uote back\\\\slash nl\\n cr\\r tab\\t\") { x: String }";
        NodeType a = SchemaCompiler.compile(src).node("A").orElseThrow();
        assertThat(a.annotation("description").orElseThrow().value())
                .isEqualTo("q\"uote back\\slash nl\n cr\r tab\t");
    }

    @Test
    void stringsMaySpanLinesAndCommentsMayAppearBetweenAnyTokens() {
        String src = "node/*c*/A/*c*/{/*c*/x/*c*/:/*c*/[ /*c*/ I64 /*c*/ ] /*c*/ ? // trailing\n"
                + "  y: String @description(\"two\nlines\")\n}";
        NodeType a = SchemaCompiler.compile(src).node("A").orElseThrow();
        assertThat(a.property("x").orElseThrow().typeSpelling()).isEqualTo("[I64]?");
        assertThat(a.property("y").orElseThrow().annotation("description").orElseThrow().value()).isEqualTo("two\nlines");
    }

    @Test
    void nodeMayRedeclareAnInheritedPropertyWithTheSameType() {
        CompiledSchema s = SchemaCompiler.compile("""
                interface I { x: String? @index }
                interface J { x: String? }
                node A implements I, J { y: I32  x: String? @description("again") }
                """);
        NodeType a = s.node("A").orElseThrow();
        assertThat(a.properties()).extracting(Property::name).containsExactly("x", "y");
        Property x = a.property("x").orElseThrow();
        assertThat(x.declaredDirectly()).isTrue();
        assertThat(x.interfaceOrigins()).containsExactly("I", "J");
        assertThat(x.annotations()).containsExactly(new Annotation("description", "again"));
        // the interface's property-level @index applies to the implementing node
        assertThat(a.constraints()).containsExactly(new Constraint.Index(List.of("x")));
    }

    @Test
    void typesMayBeReferencedBeforeTheyAreDeclared() {
        CompiledSchema s = SchemaCompiler.compile("""
                edge E: A -> B
                node A implements I { }
                node B { }
                interface I { k: String @key }
                """);
        assertThat(s.node("A").orElseThrow().key()).contains(new Constraint.Key(List.of("k")));
        assertThat(s.edge("E").orElseThrow().toType()).isEqualTo("B");
    }

    @Test
    void compositeKeyAndSignedFloatRangesParse() {
        NodeType a = SchemaCompiler.compile("""
                node A {
                    a: String
                    b: I64
                    f: F32
                    @key(b, a)
                    @range(f, -0.5..-0.25)
                    @range(b, -10..10)
                }
                """).node("A").orElseThrow();
        assertThat(a.key()).contains(new Constraint.Key(List.of("b", "a")));
        assertThat(a.constraints()).contains(
                new Constraint.Range("f", new RangeBound.FloatBound(-0.5), new RangeBound.FloatBound(-0.25)),
                new Constraint.Range("b", new RangeBound.IntBound(-10), new RangeBound.IntBound(10)));
    }

    @Test
    void emptySourceIsAnEmptySchema() {
        CompiledSchema s = SchemaCompiler.compile("  // nothing\n/* here */\n");
        assertThat(s.interfaces()).isEmpty();
        assertThat(s.nodes()).isEmpty();
        assertThat(s.edges()).isEmpty();
    }
}
