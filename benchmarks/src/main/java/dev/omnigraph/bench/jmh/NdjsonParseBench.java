package dev.omnigraph.bench.jmh;

import dev.omnigraph.engine.load.NdjsonReader;
import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.CompiledSchema;
import dev.omnigraph.engine.schema.SchemaCompiler;
import dev.omnigraph.engine.schema.SchemaIr;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.publisher.Flux;

/**
 * The strict NDJSON reader on the bulk-load lines (1,000 Person nodes + 1,000 Knows edges with ids): split,
 * parse, type-check and convert, per line. Input arrives in 64 KiB chunks like a file read.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--add-opens=java.base/java.nio=ALL-UNNAMED")
public class NdjsonParseBench {
    static final int LINES = 2_000;
    static final String SCHEMA = """
            node Person {
                name: String @key
                age: I32?
            }
            edge Knows: Person -> Person {
                since: Date?
            }
            """;

    private NdjsonReader reader;
    private byte[][] chunks;

    @Setup
    public void setup() {
        CompiledSchema compiled = SchemaCompiler.compile(SCHEMA);
        reader = new NdjsonReader(Catalog.build(SchemaIr.initial(compiled), compiled));
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < LINES / 2; i++) {
            text.append("{\"type\":\"Person\",\"data\":{\"name\":\"p").append(i).append("\",\"age\":").append(i % 100).append("}}\n");
        }
        for (int i = 0; i < LINES / 2; i++) {
            text.append("{\"edge\":\"Knows\",\"from\":\"p").append(i).append("\",\"to\":\"p").append((i * 7 + 13) % (LINES / 2))
                    .append("\",\"data\":{\"id\":\"e").append(i).append("\",\"since\":\"2024-03-01\"}}\n");
        }
        byte[] all = text.toString().getBytes(StandardCharsets.UTF_8);
        int size = 64 << 10;
        chunks = new byte[(all.length + size - 1) / size][];
        for (int c = 0; c < chunks.length; c++) {
            chunks[c] = java.util.Arrays.copyOfRange(all, c * size, Math.min(all.length, (c + 1) * size));
        }
    }

    /** Time per line (the score is per operation, one operation = one line). */
    @Benchmark
    @OperationsPerInvocation(LINES)
    public long parseLine() {
        return reader.read(Flux.fromArray(chunks).map(ByteBuffer::wrap)).count().block();
    }
}
