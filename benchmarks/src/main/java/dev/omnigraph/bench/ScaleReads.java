package dev.omnigraph.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.omnigraph.engine.GraphSnapshot;
import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.MaintenanceOperations;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.QueryOutput;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.TableInfo;
import dev.omnigraph.engine.cleanup.CleanupOptions;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.read.KeyRowsCache;
import dev.omnigraph.engine.read.TopologyCache;
import dev.omnigraph.http.server.OmnigraphServer;
import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.SqlLiterals;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.root.GraphRoot;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;
import reactor.core.publisher.Mono;

/**
 * Reads on a graph of {@code --scale N} (or {@code -Domnigraph.bench.scale-entities}) entities (default 1,000,000: half Person nodes, half
 * Knows edges whose sources follow a power law, so a few persons are hubs and most know one or none), built once
 * per run by NDJSON loads, then {@code index ensure} + {@code optimize}. Keyed point read, 1-hop and 2-hop from
 * random starts, a filtered count and an {@code order … limit} top-k, each through the engine's {@code Mono} API and
 * through the HTTP server on loopback (the server's own handle), beside raw Lance (filtered scans of the same pinned
 * versions through the BTREEs) and Neo4j embedded (the same data and queries in Cypher). Every engine answer is
 * checked against the raw or Neo4j answer where both compute the same thing. A {@code GET /healthz} row gives the
 * HTTP round trip's floor (client, loopback, dispatch) in the same run. Unless
 * {@code -Domnigraph.read.topologyCacheBytes} is given, the adjacency cache's cap is raised for the run when the
 * Knows topology would not fit the default (about 10M entities and up), and the note says so.
 */
final class ScaleReads implements Scenario {
    static final String ENTITIES_PROPERTY = "omnigraph.bench.scale-entities";
    static final String QUERIES = """
            query byName($name: String) { match { $p: Person { name: $name } } return { $p.name, $p.age } }
            query oneHop($name: String) { match { $p: Person { name: $name }  $p knows $f } return { $f.name } }
            query twoHop($name: String) { match { $p: Person { name: $name }  $p knows {2, 2} $f } return { $f.name } }
            query olderCount($x: I32) { match { $p: Person  $p.age > $x } return { count($p) as n } }
            query oldestTop($x: I32) { match { $p: Person  $p.age > $x } return { $p.name, $p.age } order { $p.age desc, $p.name asc } limit 10 }
            """;

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String name() {
        return "scale-reads";
    }

    /** The source person of edge {@code i}: index ⌊n·u²⌋ for a uniform u, a power law with hubs at low indices. */
    static int edgeSource(int i, int persons) {
        double u = (mix(i) >>> 11) * 0x1.0p-53;
        return (int) Math.min(persons - 1, (long) (persons * u * u));
    }

    static int edgeTarget(int i, int persons) {
        return (int) Long.remainderUnsigned(mix(i ^ 0x5bd1e995), persons);
    }

    private static long mix(long z) {
        z = (z + 0x9e3779b97f4a7c15L) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    static String edgeLine(int i, int persons) {
        return "{\"edge\":\"Knows\",\"from\":\"" + Workload.personName(edgeSource(i, persons)) + "\",\"to\":\""
                + Workload.personName(edgeTarget(i, persons)) + "\",\"data\":{\"id\":\"e" + i + "\"}}";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        int entities = ctx.options().quick() ? 2_000
                : ctx.options().scaleEntities().orElse(Integer.getInteger(ENTITIES_PROPERTY, 1_000_000));
        int persons = entities / 2;
        int edges = entities - persons;
        ScenarioReport report = new ScenarioReport(name(), "Reads on " + entities + " entities (" + persons
                + " Person, " + edges + " Knows with power-law sources): engine Mono API and HTTP vs raw Lance and Neo4j embedded.")
                .unit("ms per query");
        Path dir = ctx.workDir(name());
        GraphRoot root = new GraphRoot.Local(dir.resolve("graph"));
        long buildStart = System.nanoTime();
        Omnigraph built = Workload.seeded(ctx, root, Workload.SCHEMA, dir, "persons", persons, Workload.LOAD_CHUNK,
                Workload::personLine);
        for (int[] c : Workload.chunks(edges, Workload.LOAD_CHUNK)) {
            Path file = Workload.writeNdjson(dir.resolve("knows-" + c[0] + ".ndjson"), c[0], c[1], i -> edgeLine(i, persons));
            ctx.run(() -> built.load("main", LoadMode.APPEND, file, LoadOptions.DEFAULT));
            Files.delete(file);
        }
        long loadedMs = (System.nanoTime() - buildStart) / 1_000_000;
        ctx.run(() -> built.maintenance().ensureIndexes(MaintenanceOperations.Target.main()));
        ctx.run(() -> built.maintenance().optimize(MaintenanceOperations.Target.main()));
        // As an operator would after a bulk load: the ~1,800 load commits' versions go (a read's head check lists
        // the graph manifest's versions, which costs about 0.5 ms per 1,000 of them).
        ctx.run(() -> built.maintenance().cleanup(CleanupOptions.of(OptionalInt.of(10), Optional.empty(), true)));
        long builtMs = (System.nanoTime() - buildStart) / 1_000_000;
        built.close();
        report.note("build: loads " + loadedMs + " ms, loads + index ensure + optimize + cleanup --keep 10 " + builtMs + " ms; disk "
                + (BenchContext.bytesUnder(dir.resolve("graph")) >> 20) + " MiB");

        raiseTopologyCap(report, persons, edges);
        OmnigraphServer server = ctx.run(() -> OmnigraphServer.start(ctx.services(),
                OmnigraphServer.Config.of(root).withPort(0)));
        try {
            Omnigraph graph = ctx.run(() -> server.graph(server.singleGraphId().orElseThrow()));
            Http http = new Http(server.baseUrl());
            Optional<Neo4jEmbedded> neo4j = ctx.neo4j();
            if (neo4j.isPresent()) {
                long t = System.nanoTime();
                neo4j.get().clear();
                neo4j.get().insertPersons(persons, 10_000);
                neo4j.get().insertEdges(edges, i -> Workload.personName(edgeSource(i, persons)),
                        i -> Workload.personName(edgeTarget(i, persons)), 10_000);
                report.note("Neo4j load (not measured against anything): " + (System.nanoTime() - t) / 1_000_000 + " ms");
            } else {
                report.note(ctx.neo4jStatus());
            }
            GraphSnapshot snapshot = ctx.run(() -> graph.snapshot(ReadTarget.main()));
            TableInfo person = snapshot.table("node:Person").orElseThrow();
            TableInfo knows = snapshot.table("edge:Knows").orElseThrow();
            Raw raw = new Raw(ctx.services().tables(),
                    new TableRef(graph.root().resolve(person.path()).toString(), person.lanceBranch()), person.version(),
                    new TableRef(graph.root().resolve(knows.path()).toString(), knows.lanceBranch()), knows.version());
            measureAll(ctx, report, graph, http, raw, neo4j, persons);
            report.note(memory());
        } finally {
            ctx.run(server::shutdown);
        }
        return report;
    }

    /**
     * The Knows topology holds up to one id entry per person (about 130 bytes, {@code Topology}'s estimate) and 16
     * bytes per edge; past the default cap the cache would refuse it and every traversal would scan. Raised (to
     * twice the estimate) only when the cap was not set on the command line.
     */
    private static void raiseTopologyCap(ScenarioReport report, int persons, int edges) {
        long needed = 130L * persons + 16L * edges;
        long cap = TopologyCache.shared().stats().capBytes();
        if (System.getProperty(TopologyCache.CAP_PROPERTY) != null || needed <= cap) return;
        TopologyCache.shared().capBytes(2 * needed);
        report.note("topology cache cap raised for this run from " + (cap >> 20) + " MiB to " + (2 * needed >> 20)
                + " MiB (the Knows topology needs about " + (needed >> 20) + " MiB; set -D" + TopologyCache.CAP_PROPERTY
                + " to choose)");
    }

    private void measureAll(BenchContext ctx, ScenarioReport report, Omnigraph graph, Http http, Raw raw,
                            Optional<Neo4jEmbedded> neo4j, int persons) throws Exception {
        int reps = ctx.options().pick(200, 5);
        int heavyReps = ctx.options().pick(10, 2);
        Random starts = new Random(42);
        // Point read.
        Series rawPoint = report.row("raw lance: person by id (BTREE, pinned version)", null);
        Series point = report.row("engine Mono: byName", rawPoint.name());
        Series pointHttp = report.row("engine HTTP: byName", rawPoint.name());
        Series floor = report.row("HTTP floor: GET /healthz (client, loopback, dispatch)", pointHttp.name());
        Series neoPoint = report.row("neo4j embedded: person by name", rawPoint.name());
        Series rawHop = report.row("raw lance: edges by src + persons by id", null);
        Series hop = report.row("engine Mono: oneHop", rawHop.name());
        Series hopHttp = report.row("engine HTTP: oneHop", rawHop.name());
        Series neoHop = report.row("neo4j embedded: 1-hop", rawHop.name());
        Series two = report.row("engine Mono: twoHop", null);
        Series twoHttp = report.row("engine HTTP: twoHop", two.name());
        Series neoTwo = report.row("neo4j embedded: 2-hop (distinct, *2..2)", two.name());
        long firstHop = System.nanoTime();
        ctx.run(() -> rows(graph, "oneHop", Map.of("name", Workload.personName(0))));
        report.note("first 1-hop (builds the Knows topology of the pinned version): "
                + (System.nanoTime() - firstHop) / 1_000_000 + " ms; topology cache " + TopologyCache.shared().stats());
        // That read also started the Person key rows' build in the background (it scanned meanwhile).
        long keyRowsWait = System.nanoTime();
        ctx.run(() -> KeyRowsCache.shared().idle());
        report.note("key rows of Person ready " + (System.nanoTime() - keyRowsWait) / 1_000_000
                + " ms after the first keyed read; key-rows cache " + KeyRowsCache.shared().stats());
        long hopRows = 0;
        long twoRows = 0;
        for (int i = 0; i < 10 + reps; i++) {
            boolean m = i >= 10;
            String name = Workload.personName(starts.nextInt(persons));
            Map<String, Object> params = Map.of("name", name);
            List<Map<String, Object>> r = ctx.runOrMeasure(m ? rawPoint : null, () -> raw.person(name));
            List<List<Object>> e = ctx.runOrMeasure(m ? point : null, () -> rows(graph, "byName", params));
            int h = timed(ctx, m ? pointHttp : null, () -> http.rowCount("byName", params));
            timed(ctx, m ? floor : null, http::health);
            if (r.size() != 1 || e.size() != 1 || h != 1 || !name.equals(e.get(0).get(0)))
                throw new IllegalStateException("point read of " + name + ": raw " + r + ", engine " + e + ", http " + h);
            if (neo4j.isPresent()) timed(ctx, m ? neoPoint : null, () -> neo4j.get().rows(
                    "MATCH (p:Person {name: $name}) RETURN p.name, p.age", params).size());

            int rh = ctx.runOrMeasure(m ? rawHop : null, () -> raw.oneHop(name));
            List<List<Object>> eh = ctx.runOrMeasure(m ? hop : null, () -> rows(graph, "oneHop", params));
            int hh = timed(ctx, m ? hopHttp : null, () -> http.rowCount("oneHop", params));
            if (rh != eh.size() || hh != eh.size())
                throw new IllegalStateException("1-hop from " + name + ": raw " + rh + ", engine " + eh.size() + ", http " + hh);
            if (neo4j.isPresent()) {
                int n = timed(ctx, m ? neoHop : null, () -> neo4j.get().rows(
                        "MATCH (p:Person {name: $name})-[:KNOWS]->(f) RETURN f.name", params).size());
                if (n != eh.size()) throw new IllegalStateException("1-hop from " + name + ": neo4j " + n + ", engine " + eh.size());
            }
            List<List<Object>> e2 = ctx.runOrMeasure(m ? two : null, () -> rows(graph, "twoHop", params));
            int h2 = timed(ctx, m ? twoHttp : null, () -> http.rowCount("twoHop", params));
            if (h2 != e2.size()) throw new IllegalStateException("2-hop from " + name + ": http " + h2 + ", engine " + e2.size());
            if (neo4j.isPresent()) timed(ctx, m ? neoTwo : null, () -> neo4j.get().rows(
                    "MATCH (p:Person {name: $name})-[:KNOWS*2..2]->(f) RETURN DISTINCT f.name", params).size());
            if (m) {
                hopRows += eh.size();
                twoRows += e2.size();
            }
        }
        report.note("mean rows per start: 1-hop " + (double) hopRows / reps + ", 2-hop " + (double) twoRows / reps
                + " (the engine's 2-hop counts nodes at shortest distance exactly 2; Neo4j's *2..2 any walk of length 2)");

        // Filtered aggregate and top-k over every person.
        Series count = report.row("engine Mono: olderCount (age > 49)", null);
        Series countHttp = report.row("engine HTTP: olderCount", count.name());
        Series neoCount = report.row("neo4j embedded: count(age > 49)", count.name());
        Series top = report.row("engine Mono: oldestTop (order age desc, name limit 10)", null);
        Series topHttp = report.row("engine HTTP: oldestTop", top.name());
        Series neoTop = report.row("neo4j embedded: ORDER BY age DESC, name LIMIT 10", top.name());
        Map<String, Object> older = Map.of("x", 49);
        for (int i = 0; i < 2 + heavyReps; i++) {
            boolean m = i >= 2;
            List<List<Object>> c = ctx.runOrMeasure(m ? count : null, () -> rows(graph, "olderCount", older));
            timed(ctx, m ? countHttp : null, () -> http.rowCount("olderCount", older));
            List<List<Object>> t = ctx.runOrMeasure(m ? top : null, () -> rows(graph, "oldestTop", older));
            timed(ctx, m ? topHttp : null, () -> http.rowCount("oldestTop", older));
            if (neo4j.isPresent()) {
                long n = neo4j.get().count("MATCH (p:Person) WHERE p.age > 49 RETURN count(p) AS c");
                timed(ctx, m ? neoCount : null, () -> (int) neo4j.get().count("MATCH (p:Person) WHERE p.age > 49 RETURN count(p) AS c"));
                if (n != ((Number) c.get(0).get(0)).longValue())
                    throw new IllegalStateException("count: neo4j " + n + ", engine " + c);
                List<Map<String, Object>> nt = neo4j.get().rows("MATCH (p:Person) WHERE p.age > 49 RETURN p.name AS name "
                        + "ORDER BY p.age DESC, p.name ASC LIMIT 10", Map.of());
                timed(ctx, m ? neoTop : null, () -> neo4j.get().rows("MATCH (p:Person) WHERE p.age > 49 RETURN p.name AS name "
                        + "ORDER BY p.age DESC, p.name ASC LIMIT 10", Map.of()).size());
                for (int k = 0; k < t.size(); k++)
                    if (!t.get(k).get(0).equals(nt.get(k).get("name")))
                        throw new IllegalStateException("top-k: neo4j " + nt + ", engine " + t);
            }
        }
    }

    private static <T> T timed(BenchContext ctx, Series row, BenchContext.ThrowingSupplier<T> action) throws Exception {
        return row == null ? action.get() : ctx.measure(row, 1, action);
    }

    static Mono<List<List<Object>>> rows(Omnigraph graph, String query, Map<String, Object> params) {
        return graph.query(ReadTarget.main(), QUERIES, query, params).flatMap((QueryOutput o) -> o.rows().collectList());
    }

    /** Heap after a collection and the process's resident set, as a note. */
    static String memory() {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        long heap = (rt.totalMemory() - rt.freeMemory()) >> 20;
        String rss = "?";
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status")))
                if (line.startsWith("VmRSS:") || line.startsWith("VmHWM:")) rss = rss.equals("?") ? line : rss + ", " + line;
        } catch (Exception e) {
            // not Linux: the heap figure alone
        }
        return "memory after the reads: heap in use " + heap + " MiB (max " + (rt.maxMemory() >> 20) + " MiB); " + rss;
    }

    /** Raw Lance on the same pinned versions: filtered scans the BTREEs on id and src answer. */
    record Raw(TableStorage tables, TableRef persons, long personsVersion, TableRef knows, long knowsVersion) {
        Mono<List<Map<String, Object>>> person(String id) {
            return PointRead.rawLookup(tables, persons, personsVersion, id);
        }

        Mono<Integer> oneHop(String id) {
            return tables.open(knows, OptionalLong.of(knowsVersion))
                    .flatMapMany(s -> tables.scan(s, ScanRequest.where(SqlLiterals.eq("src", id)).withColumns(List.of("dst"))))
                    .flatMapIterable(RowBatch::rows).map(r -> (String) r.get("dst")).collectList()
                    .flatMap(dsts -> dsts.isEmpty() ? Mono.just(0) : tables.open(persons, OptionalLong.of(personsVersion))
                            .flatMapMany(s -> tables.scan(s, ScanRequest.where(SqlLiterals.inList("id", dsts))
                                    .withColumns(List.of("id", "name"))))
                            .flatMapIterable(RowBatch::rows)
                            .collectList()
                            .map(found -> {
                                Map<String, Boolean> present = new java.util.HashMap<>();
                                found.forEach(r -> present.put((String) r.get("id"), true));
                                int n = 0;
                                for (String d : dsts) if (present.containsKey(d)) n++;
                                return n;
                            }));
        }
    }

    /** The server's {@code /query} route, one request at a time. */
    record Http(String base, HttpClient client) {
        Http(String base) {
            this(base, HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
        }

        int rowCount(String name, Map<String, Object> params) throws Exception {
            String body = JSON.writeValueAsString(Map.of("query", QUERIES, "name", name, "params", params));
            HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(URI.create(base + "/query"))
                    .header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() != 200)
                throw new IllegalStateException("HTTP " + response.statusCode() + ": " + new String(response.body()));
            JsonNode json = JSON.readTree(response.body());
            return json.get("rows").size();
        }

        int health() throws Exception {
            HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(URI.create(base + "/healthz")).GET().build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() != 200) throw new IllegalStateException("healthz: HTTP " + response.statusCode());
            return response.body().length;
        }
    }
}
