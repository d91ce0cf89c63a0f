package dev.omnigraph.engine.load;

import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.CompiledSchema;
import dev.omnigraph.engine.schema.SchemaCompiler;
import dev.omnigraph.engine.schema.SchemaIr;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import reactor.core.publisher.Flux;

/** A small catalog with every property type, and helpers to feed text to a reader. */
final class LoadFixture {
    static final String SCHEMA = """
            node Person {
                name: String @key
                age: I32?
                big: U64?
                small: U32?
                count: I64?
                score: F32?
                weight: F64?
                born: Date?
                seen: DateTime?
                ok: Bool?
                tags: [String]?
                nums: [I64]?
                days: [Date]?
                v: Vector(3)?
                mood: enum(sad, happy)?
            }
            node Note { body: String  rank: I32? }
            node Pair {
                a: String
                b: I64
                @key(a, b)
            }
            edge Knows: Person -> Person { since: Date?  strength: F32? }
            edge WrOTE: Person -> Note
            """;

    static final Catalog CATALOG = build();

    private LoadFixture() {}

    private static Catalog build() {
        CompiledSchema s = SchemaCompiler.compile(SCHEMA);
        return Catalog.build(SchemaIr.initial(s, "01HZY8Q4W5M3XKJ7T2V9C6B1DE"), s);
    }

    static NdjsonReader reader() {
        return new NdjsonReader(CATALOG);
    }

    static Flux<ByteBuffer> bytes(String text) {
        return Flux.just(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
    }

    static List<LoadRecord> readAll(String text) {
        return reader().read(bytes(text)).collectList().block();
    }

    /** A Note line whose body holds the raw bytes ED A0 80: U+D800 in CESU-8, never valid UTF-8. */
    static byte[] noteWithRawSurrogate() {
        byte[] head = "{\"type\":\"Note\",\"data\":{\"body\":\"".getBytes(StandardCharsets.UTF_8);
        byte[] tail = "\"}}".getBytes(StandardCharsets.UTF_8);
        byte[] line = new byte[head.length + 3 + tail.length];
        System.arraycopy(head, 0, line, 0, head.length);
        line[head.length] = (byte) 0xED;
        line[head.length + 1] = (byte) 0xA0;
        line[head.length + 2] = (byte) 0x80;
        System.arraycopy(tail, 0, line, head.length + 3, tail.length);
        return line;
    }
}
