package dev.omnigraph.bench;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.storage.testing.S3TestServer;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

/**
 * The same graph on local disk and on S3 (S3Proxy's in-memory store on loopback, in this JVM): a one-row insert
 * and a keyed point read, interleaved per repetition so machine noise hits all four series alike. Every storage
 * seam call is at least one HTTP request on S3, so the calls per write (reported per row) and the server's PUTs
 * per write (noted) matter more there than on disk. Loopback has no network latency: on a real endpoint each
 * request adds a round trip.
 */
final class S3Roots implements Scenario {
    static final String LOCAL_INSERT = "local disk: insert Person";
    static final String LOCAL_READ = "local disk: query byName";

    @Override
    public String name() {
        return "s3-roots";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        int persons = ctx.options().pick(2_000, 20);
        ScenarioReport report = new ScenarioReport(name(), "One-row insert and keyed point read (among " + persons
                + " Persons) on a local root vs an s3:// root on a loopback S3-compatible server (S3Proxy, in memory).")
                .unit("ms per operation");
        Series localInsert = report.row(LOCAL_INSERT, null);
        Series s3Insert = report.row("s3 (loopback): insert Person", LOCAL_INSERT);
        Series localRead = report.row(LOCAL_READ, null);
        Series s3Read = report.row("s3 (loopback): query byName", LOCAL_READ);
        Path dir = ctx.workDir(name());
        int warmup = ctx.options().pick(10, 2);
        int reps = ctx.options().pick(100, 3);
        long puts = 0;
        try (S3TestServer server = S3TestServer.start()) {
            Omnigraph local = seeded(ctx, new GraphRoot.Local(dir.resolve("graph")), dir, persons);
            Omnigraph s3 = seeded(ctx, server.root("bench", "graph"), dir, persons);
            try {
                Random keys = new Random(42);
                for (int i = 0; i < warmup + reps; i++) {
                    boolean measured = i >= warmup;
                    String name = "s3r-" + i;
                    String key = Workload.personName(keys.nextInt(persons));
                    ctx.runOrMeasure(measured ? localInsert : null, () -> Workload.addPerson(local, name, 36));
                    int before = server.puts();
                    ctx.runOrMeasure(measured ? s3Insert : null, () -> Workload.addPerson(s3, name, 36));
                    puts += measured ? server.puts() - before : 0;
                    check(key, ctx.runOrMeasure(measured ? localRead : null, () -> PointRead.lookup(local, key)));
                    check(key, ctx.runOrMeasure(measured ? s3Read : null, () -> PointRead.lookup(s3, key)));
                }
            } finally {
                local.closeAsync().block();
                s3.closeAsync().block();
            }
        }
        report.note(String.format("S3 PUT requests per insert (counted at the server): %.1f", puts / (double) reps));
        report.note("warm-up " + warmup + " repetitions per series; both graphs start with " + persons
                + " Persons in one fragment and grow by one commit per insert (at most " + (warmup + reps + 2)
                + " commits deep); no scalar index");
        return report;
    }

    private static void check(String key, List<List<Object>> found) {
        if (found.size() != 1 || !key.equals(found.get(0).get(0))) {
            throw new IllegalStateException("lookup of " + key + " returned " + found);
        }
    }

    /** A graph at {@code root} holding {@code persons} Persons, loaded by NDJSON in one chunk. */
    private static Omnigraph seeded(BenchContext ctx, GraphRoot root, Path dir, int persons) throws Exception {
        return Workload.seeded(ctx, root, Workload.SCHEMA, dir, "persons", persons, Math.max(1, persons),
                Workload::personLine);
    }
}
