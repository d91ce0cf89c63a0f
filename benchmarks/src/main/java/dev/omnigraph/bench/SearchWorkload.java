package dev.omnigraph.bench;

import dev.omnigraph.engine.GraphSnapshot;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.QueryOutput;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.TableInfo;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.root.GraphRoot;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import reactor.core.publisher.Mono;

/**
 * The documents the search scenarios rank: {@code Doc} nodes with a random unit-cube vector and a body of random
 * words whose frequencies fall off like natural text (word {@code r} of the vocabulary is about {@code 1/r} as
 * frequent as the first), both {@code @index}, so {@code index ensure} builds a vector and an inverted index.
 * Everything is derived from the row number, so a run is reproducible.
 */
final class SearchWorkload {
    static final int DIM = 16;
    static final int VOCABULARY = 20_000;
    static final String SCHEMA = """
            node Doc {
                slug: String @key
                cat: I32
                body: String @index
                vec: Vector(%d) @index
            }
            """.formatted(DIM);
    static final String QUERIES = """
            query near($q: Vector(%1$d)) {
                match { $d: Doc } return { $d.slug } order { nearest($d.vec, $q) } limit 10
            }
            query nearAll($q: Vector(%1$d)) {
                match { $d: Doc  $d.cat >= 0 } return { $d.slug } order { nearest($d.vec, $q) } limit 10
            }
            query nearIn($q: Vector(%1$d), $c: I32) {
                match { $d: Doc  $d.cat = $c } return { $d.slug } order { nearest($d.vec, $q) } limit 10
            }
            query top($q: String) {
                match { $d: Doc } return { $d.slug, bm25($d.body, $q) as s } order { bm25($d.body, $q) } limit 10
            }
            query having($q: String) { match { $d: Doc  search($d.body, $q) } return { $d.slug } }
            """.formatted(DIM);
    /** cat takes this many values; a filter on one keeps 1/CATS of the rows. */
    static final int CATS = 10;
    private static final double[] CUMULATIVE = cumulativeZipf();

    private SearchWorkload() {
    }

    static String slug(int i) {
        return "d" + i;
    }

    static float[] vector(Random random) {
        float[] v = new float[DIM];
        for (int j = 0; j < DIM; j++) v[j] = random.nextFloat() * 2 - 1;
        return v;
    }

    static List<Double> list(float[] v) {
        List<Double> out = new ArrayList<>(v.length);
        for (float f : v) out.add((double) f);
        return out;
    }

    static String word(int rank) {
        return "w" + rank;
    }

    /** A vocabulary rank drawn with probability about proportional to 1 / (rank + 1). */
    static int zipfRank(Random random) {
        int at = java.util.Arrays.binarySearch(CUMULATIVE, random.nextDouble());
        return Math.min(VOCABULARY - 1, at >= 0 ? at : -at - 1);
    }

    static String line(int i) {
        Random random = new Random(i * 31L + 7);
        StringBuilder body = new StringBuilder();
        for (int w = 0, n = 8 + random.nextInt(24); w < n; w++) body.append(w == 0 ? "" : " ").append(word(zipfRank(random)));
        StringBuilder vec = new StringBuilder();
        for (float f : vector(random)) vec.append(vec.length() == 0 ? "" : ",").append(f);
        return "{\"type\":\"Doc\",\"data\":{\"slug\":\"" + slug(i) + "\",\"cat\":" + (i % CATS) + ",\"body\":\"" + body
                + "\",\"vec\":[" + vec + "]}}";
    }

    /** A graph at {@code dir/graph} holding {@code docs} documents, loaded by NDJSON in chunks of 8,192. */
    static Omnigraph seeded(BenchContext ctx, Path dir, int docs) throws Exception {
        return Workload.seeded(ctx, new GraphRoot.Local(dir.resolve("graph")), SCHEMA, dir, "docs", docs,
                Workload.LOAD_CHUNK, SearchWorkload::line);
    }

    static TableInfo docs(BenchContext ctx, Omnigraph graph) {
        GraphSnapshot snapshot = ctx.run(() -> graph.snapshot(ReadTarget.main()));
        return snapshot.table("node:Doc").orElseThrow();
    }

    static TableRef ref(Omnigraph graph, TableInfo table) {
        return new TableRef(graph.root().resolve(table.path()).toString(), table.lanceBranch());
    }

    static Mono<List<List<Object>>> query(Omnigraph graph, String name, Map<String, Object> params) {
        return graph.query(ReadTarget.main(), QUERIES, name, params)
                .flatMap((QueryOutput output) -> output.rows().collectList());
    }

    private static double[] cumulativeZipf() {
        double[] c = new double[VOCABULARY];
        double sum = 0;
        for (int r = 0; r < VOCABULARY; r++) c[r] = sum += 1.0 / (r + 1);
        for (int r = 0; r < VOCABULARY; r++) c[r] /= sum;
        return c;
    }
}
