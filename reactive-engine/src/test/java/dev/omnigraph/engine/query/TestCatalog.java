package dev.omnigraph.engine.query;

import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.CompiledSchema;
import dev.omnigraph.engine.schema.SchemaCompiler;
import dev.omnigraph.engine.schema.SchemaIr;

/** The schema every query test checks against. */
final class TestCatalog {
    private TestCatalog() {}

    static final String SCHEMA = """
            node Person {
                name: String @key
                age: I32?
                score: F64?
                rating: F32?
                big: U64?
                count32: U32?
                tags: [String]?
                nums: [I64]?
                born: Date?
                seen: DateTime?
                active: Bool?
                mood: enum(happy, sad)?
                embedding: Vector(3)?
            }
            node Company {
                title: String @key
                founded: I32
            }
            node Doc {
                body: String
                v: Vector(2) @embed("body")
            }
            edge Knows: Person -> Person {
                since: Date?
                weight: F64?
            }
            edge WorksAt: Person -> Company {
                role: String
            }
            """;

    static final Catalog CATALOG = build();

    private static Catalog build() {
        CompiledSchema s = SchemaCompiler.compile(SCHEMA);
        return Catalog.build(SchemaIr.initial(s), s);
    }

    static CompiledQuery compile(String source) {
        QueryFile file = QueryCompiler.parse(source);
        return QueryCompiler.check(file.queries().get(0), CATALOG);
    }

    static ReadPlan read(String source) {
        return (ReadPlan) compile(source);
    }

    static MutationPlan mutation(String source) {
        return (MutationPlan) compile(source);
    }
}
