package dev.omnigraph.engine.read;

import dev.omnigraph.engine.GraphSnapshot;
import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.query.BoundParams;
import dev.omnigraph.engine.query.CompiledQuery;
import dev.omnigraph.engine.query.QueryCompiler;
import dev.omnigraph.engine.query.ReadPlan;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Flux;

/**
 * A small hand-written graph with known answers.
 *
 * <pre>
 * knows (directed):  Ann→Bob (k1, k6: parallel)  Bob→Cid (k2)  Cid→Dan (k3)  Ann→Cid (k4)  Dan→Ann (k5)  Eve→Eve (k7)
 * worksAt:           Ann→Acme (eng)  Bob→Acme (ops)  Cid→Initech (eng)  Eve→Initech (no role)
 * Fay knows nobody and works nowhere; Globex employs nobody.
 * </pre>
 */
final class ReadFixture {
    static final String SCHEMA = """
            node Person {
                name: String @key
                age: I32?
                nickName: String?
                tags: [String]?
                born: Date?
                seen: DateTime?
                score: F64?
                rating: F32?
                big: U64?
                level: enum(junior, senior)?
                vec: Vector(2)?
            }
            node Company {
                name: String @key
                founded: I32
            }
            node Note {
                text: String
                stars: I64?
            }
            edge Knows: Person -> Person {
                since: Date?
                weight: F64?
            }
            edge WorksAt: Person -> Company {
                role: String?
            }
            """;

    static final String[] LINES = {
            """
            {"type":"Person","data":{"name":"Ann","age":30,"nickName":"annie","tags":["a","b"],"born":"1990-05-01","seen":"2024-03-01T10:00:00.250Z","score":1.5,"rating":0.1,"big":18446744073709551615,"level":"senior","vec":[0.5,1.25]}}""",
            """
            {"type":"Person","data":{"name":"Bob","age":25,"tags":["b"],"born":"1999-12-31","seen":"2023-01-01T00:00:00Z","score":2.5,"rating":0.2,"big":7,"level":"junior"}}""",
            """
            {"type":"Person","data":{"name":"Cid","age":35,"tags":[],"born":"1985-01-01","score":-1.0,"level":"senior"}}""",
            """
            {"type":"Person","data":{"name":"Dan","nickName":"D'Artagnan"}}""",
            """
            {"type":"Person","data":{"name":"Eve","age":30,"score":4.0}}""",
            """
            {"type":"Person","data":{"name":"Fay","age":40,"level":"junior"}}""",
            """
            {"type":"Company","data":{"name":"Acme","founded":1990}}""",
            """
            {"type":"Company","data":{"name":"Initech","founded":1999}}""",
            """
            {"type":"Company","data":{"name":"Globex","founded":2005}}""",
            """
            {"type":"Note","data":{"id":"n1","text":"hello","stars":3}}""",
            """
            {"edge":"Knows","from":"Ann","to":"Bob","data":{"id":"k1","since":"2020-01-01","weight":0.9}}""",
            """
            {"edge":"Knows","from":"Bob","to":"Cid","data":{"id":"k2","weight":0.5}}""",
            """
            {"edge":"Knows","from":"Cid","to":"Dan","data":{"id":"k3","weight":0.2}}""",
            """
            {"edge":"Knows","from":"Ann","to":"Cid","data":{"id":"k4","since":"2021-06-01","weight":0.1}}""",
            """
            {"edge":"Knows","from":"Dan","to":"Ann","data":{"id":"k5"}}""",
            """
            {"edge":"Knows","from":"Ann","to":"Bob","data":{"id":"k6","weight":0.3}}""",
            """
            {"edge":"Knows","from":"Eve","to":"Eve","data":{"id":"k7","weight":1.0}}""",
            """
            {"edge":"WorksAt","from":"Ann","to":"Acme","data":{"id":"w1","role":"eng"}}""",
            """
            {"edge":"WorksAt","from":"Bob","to":"Acme","data":{"id":"w2","role":"ops"}}""",
            """
            {"edge":"WorksAt","from":"Cid","to":"Initech","data":{"id":"w3","role":"eng"}}""",
            """
            {"edge":"WorksAt","from":"Eve","to":"Initech","data":{"id":"w4"}}"""};

    static final Instant NOW = Instant.parse("2024-06-01T12:00:00Z");

    private ReadFixture() {}

    static StorageServices services() {
        return new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
    }

    static Flux<ByteBuffer> ndjson(List<String> lines) {
        return Flux.fromIterable(lines).map(l -> ByteBuffer.wrap((l + "\n").getBytes(StandardCharsets.UTF_8)));
    }

    static WriteOutcome load(Omnigraph graph, LoadMode mode, List<String> lines) {
        return graph.load("main", mode, ndjson(lines), LoadOptions.DEFAULT).block();
    }

    static Omnigraph graph(StorageServices services, Path dir) {
        Omnigraph graph = Omnigraph.init(services, dir, SCHEMA).block();
        load(graph, LoadMode.APPEND, List.of(LINES));
        return graph;
    }

    static ManifestState head(Omnigraph graph) {
        GraphSnapshot snapshot = graph.snapshot(ReadTarget.main()).block();
        return snapshot.manifest();
    }

    static ReadPlan plan(Omnigraph graph, String source) {
        CompiledQuery q = QueryCompiler.check(QueryCompiler.parse(source).queries().get(0), graph.catalog());
        return (ReadPlan) q;
    }

    static QueryResult run(Omnigraph graph, StorageServices services, ManifestState state, String source,
                           Map<String, Object> params) {
        ReadPlan plan = plan(graph, source);
        BoundParams bound = plan.bind(params);
        return new QueryExecutor(services.tables(), graph.root().toString(), graph.catalog())
                .execute(plan, bound, state, NOW);
    }
}
