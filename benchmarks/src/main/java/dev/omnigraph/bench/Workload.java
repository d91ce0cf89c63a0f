package dev.omnigraph.bench;

import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.CommittedVersion;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.root.GraphRoot;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.IntFunction;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Mono;

/** The graph schema, queries, rows and NDJSON files the scenarios share, and the raw-Lance baseline write. */
final class Workload {
    static final String SCHEMA = """
            node Person {
                name: String @key
                age: I32?
            }
            node Note {
                text: String
            }
            edge Knows: Person -> Person {
                since: Date?
            }
            """;

    static final String QUERIES = """
            query addPerson($name: String, $age: I32?) { insert Person { name: $name, age: $age } }
            query addNote($text: String) { insert Note { text: $text } }
            query byName($name: String) { match { $p: Person { name: $name } } return { $p.name, $p.age } }
            """;

    private Workload() {
    }

    static Mono<WriteOutcome> addPerson(Omnigraph graph, String name, int age) {
        return graph.mutate("main", QUERIES, "addPerson", Map.of("name", name, "age", age), WriteOptions.DEFAULT);
    }

    static Mono<WriteOutcome> addNote(Omnigraph graph, String text) {
        return graph.mutate("main", QUERIES, "addNote", Map.of("text", text), WriteOptions.DEFAULT);
    }

    static Schema schemaOf(Omnigraph graph, String tableKey) {
        return graph.schema().catalog().table(tableKey).orElseThrow().arrowSchema();
    }

    /** A row with every column of {@code schema}, in its order; columns {@code values} lacks are null. */
    static Map<String, Object> row(Schema schema, Map<String, Object> values) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (Field field : schema.getFields()) {
            row.put(field.getName(), values.get(field.getName()));
        }
        return row;
    }

    static Map<String, Object> personRow(Schema schema, String name, int age) {
        return row(schema, Map.of("id", name, "name", name, "age", age));
    }

    static Map<String, Object> knowsRow(Schema schema, String id, String src, String dst) {
        Map<String, Object> values = new HashMap<>();
        values.put("id", id);
        values.put("src", src);
        values.put("dst", dst);
        return row(schema, values);
    }

    static String personName(int i) {
        return "p" + i;
    }

    /** Edge i joins person i to a scattered other person, so edge validation touches the whole node table. */
    static int knowsTarget(int i, int persons) {
        return (int) ((i * 7L + 13) % persons);
    }

    static String personLine(int i) {
        return "{\"type\":\"Person\",\"data\":{\"name\":\"" + personName(i) + "\",\"age\":" + (i % 100) + "}}";
    }

    static String knowsLine(int i, int persons) {
        return "{\"edge\":\"Knows\",\"from\":\"" + personName(i) + "\",\"to\":\"" + personName(knowsTarget(i, persons))
                + "\",\"data\":{\"id\":\"e" + i + "\"}}";
    }

    /** Writes lines {@code [from, to)} of {@code line} to one NDJSON file. */
    static Path writeNdjson(Path file, int from, int to, IntFunction<String> line) throws IOException {
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (int i = from; i < to; i++) {
                out.write(line.apply(i));
                out.write('\n');
            }
        }
        return file;
    }

    /** Lines per NDJSON file (one load commit each) when seeding a graph. */
    static final int LOAD_CHUNK = 8_192;

    /**
     * A graph at {@code root} with {@code schema}, loaded (APPEND) with lines {@code [0, total)} of {@code line}
     * through NDJSON files {@code dir/<prefix>-<from>.ndjson} of at most {@code chunk} lines, one commit each.
     */
    static Omnigraph seeded(BenchContext ctx, GraphRoot root, String schema, Path dir, String prefix, int total,
            int chunk, IntFunction<String> line) throws IOException {
        Omnigraph graph = ctx.run(() -> Omnigraph.at(root).services(ctx.services()).init(schema));
        for (int[] c : chunks(total, chunk)) {
            Path file = writeNdjson(dir.resolve(prefix + "-" + c[0] + ".ndjson"), c[0], c[1], line);
            ctx.run(() -> graph.load("main", LoadMode.APPEND, file, LoadOptions.DEFAULT));
        }
        return graph;
    }

    /** Chunk boundaries of {@code total} items, at most {@code chunk} each. */
    static List<int[]> chunks(int total, int chunk) {
        List<int[]> out = new ArrayList<>();
        for (int from = 0; from < total; from += chunk) {
            out.add(new int[] {from, Math.min(total, from + chunk)});
        }
        return out;
    }

    /** A raw Lance table (no graph, no manifest) with the given schema. */
    static TableRef rawTable(BenchContext ctx, Path path, Schema schema) {
        ctx.run(() -> ctx.services().tables().create(path.toString(), schema));
        return TableRef.main(path.toString());
    }

    /** The raw-Lance baseline write: open the latest version, stage one Append of {@code rows}, commit it once. */
    static Mono<CommittedVersion> rawAppend(TableStorage tables, TableRef ref, List<Map<String, Object>> rows) {
        return tables.open(ref, OptionalLong.empty())
                .flatMap(snapshot -> tables.stageAppend(snapshot, rows, Map.of()))
                .flatMap(tables::commitStaged);
    }

    /** The raw-Lance upsert baseline: one staged Update (deletion vectors + new fragment) by {@code id}. */
    static Mono<CommittedVersion> rawUpsert(TableStorage tables, TableRef ref, List<Map<String, Object>> rows) {
        return tables.open(ref, OptionalLong.empty())
                .flatMap(snapshot -> tables.stageUpsert(snapshot, rows, "id", Map.of()))
                .flatMap(tables::commitStaged);
    }

    static Mono<CommittedVersion> rawOverwrite(TableStorage tables, TableRef ref, List<Map<String, Object>> rows) {
        return tables.open(ref, OptionalLong.empty())
                .flatMap(snapshot -> tables.stageOverwrite(snapshot, rows, Map.of()))
                .flatMap(tables::commitStaged);
    }
}
