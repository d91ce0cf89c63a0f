package dev.omnigraph.engine.index;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.schema.IndexPlan;
import dev.omnigraph.storage.IndexSpec;
import dev.omnigraph.storage.LanceTableStorage;
import dev.omnigraph.storage.NearestRequest;
import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recall of the IVF index as the engine sizes and probes it (partitions ≈ √rows, {@link IndexPlan#probes}) against
 * the exact answer, on a seeded corpus of clustered 16-dimensional vectors (clusters like real embeddings have,
 * plus noise), through the real storage seam: recall@10 averaged over 50 queries must be at least 0.95.
 */
class AnnRecallTest {
    static final int DIMS = 16;
    static final int ROWS = 20_000;

    @TempDir
    Path dir;

    @Test
    void recallAtTenIsAtLeastNinetyFivePercent() {
        Random random = new Random(42);
        float[][] centres = new float[64][DIMS];
        for (float[] centre : centres) for (int d = 0; d < DIMS; d++) centre[d] = random.nextFloat() * 10;
        Map<String, float[]> vectors = new HashMap<>();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            float[] centre = centres[random.nextInt(centres.length)];
            float[] v = new float[DIMS];
            List<Float> boxed = new ArrayList<>(DIMS);
            for (int d = 0; d < DIMS; d++) {
                v[d] = centre[d] + (float) random.nextGaussian();
                boxed.add(v[d]);
            }
            vectors.put("v" + i, v);
            rows.add(Map.of("id", "v" + i, "vec", boxed));
        }
        Schema schema = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Utf8()), null),
                new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(DIMS)),
                        List.of(Field.nullable("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))))));
        try (LanceTableStorage tables = StorageFixture.newTableStorage()) {
            TableSnapshot empty = tables.create(dir.resolve("docs").toString(), schema).block();
            TableSnapshot filled = tables.commitStaged(tables.stageAppend(empty, rows, Map.of()).block()).block()
                    .snapshot().orElseThrow();
            IndexSpec spec = new IndexSpec(IndexPlan.vectorIndexName("vec"), "vec", IndexSpec.Kind.VECTOR,
                    IndexPlan.partitions(ROWS));
            StagedHandle staged = tables.stageIndexes(filled, List.of(spec), Map.of()).block().orElseThrow();
            long indexed = tables.commitStaged(staged).block().version();
            TableSnapshot at = tables.open(filled.ref(), OptionalLong.of(indexed)).block();

            double recall = 0;
            int queries = 50;
            for (int q = 0; q < queries; q++) {
                float[] key = vectors.get("v" + random.nextInt(ROWS)).clone();
                for (int d = 0; d < DIMS; d++) key[d] += (float) random.nextGaussian() * 0.5f;
                Set<String> exact = new HashSet<>(vectors.entrySet().stream()
                        .sorted(Comparator.comparingDouble(e -> distance(e.getValue(), key)))
                        .limit(10).map(Map.Entry::getKey).toList());
                List<Map<String, Object>> found = tables.nearest(at, new NearestRequest("vec", key, 10,
                        IndexPlan.probes(ROWS), List.of("id"))).block();
                recall += found.stream().filter(row -> exact.contains((String) row.get("id"))).count() / 10.0;
            }
            recall /= queries;
            System.out.println("AnnRecallTest recall@10 = " + recall + " with " + IndexPlan.partitions(ROWS)
                    + " partitions, " + IndexPlan.probes(ROWS) + " probed");
            assertThat(recall).isGreaterThanOrEqualTo(0.95);
        }
    }

    private static double distance(float[] a, float[] b) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) sum += (a[i] - b[i]) * (double) (a[i] - b[i]);
        return sum;
    }
}
