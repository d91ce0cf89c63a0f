package dev.omnigraph.storage;

import org.lance.Dataset;
import org.lance.index.DistanceType;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.index.vector.VectorIndexParams;
import dev.omnigraph.storage.error.ReadSetChanged;
import dev.omnigraph.storage.error.StorageFault;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.Query;
import org.lance.ipc.ScanOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Index builds on an open dataset. Lance 0.39 cannot stage an index: {@code createIndex} commits a new version
 * on the spot (lance-java.md §9). So a build is exact by construction instead: the dataset must be at the
 * expected version before the call and exactly one version later after it, and the new version must list the
 * index. Nothing here reads a transaction: {@code readTransaction()} aborts the JVM on an index version.
 */
final class LanceIndexes {
    private LanceIndexes() {
    }

    static List<String> names(Dataset dataset) {
        return dataset.listIndexes().stream().sorted().toList();
    }

    /**
     * Builds {@code spec} on {@code dataset} (opened at its latest version); returns the version it produced. With
     * {@code replace} the index must exist and is rebuilt over every fragment; without, it must not exist yet.
     */
    static long create(TableRef ref, Dataset dataset, long expectedVersion, IndexSpec spec, boolean replace) {
        if (dataset.version() != expectedVersion) {
            throw new ReadSetChanged("table " + ref, "version " + expectedVersion, "version " + dataset.version());
        }
        if (dataset.listIndexes().contains(spec.name()) != replace) {
            throw new StorageFault("index " + spec.name() + (replace ? " does not exist on " : " already exists on ")
                    + ref, null);
        }
        dataset.createIndex(List.of(spec.column()), type(spec), Optional.of(spec.name()), params(spec), replace);
        long achieved = dataset.version();
        if (achieved != expectedVersion + 1 || !dataset.listIndexes().contains(spec.name())) {
            throw new StorageFault("index " + spec.name() + " on " + ref + " landed as version " + achieved
                    + ", not exactly on " + (expectedVersion + 1), null);
        }
        return achieved;
    }

    /**
     * Lance 0.39's failure when a vector index names rows deleted since its build (deletes, and updates, which
     * delete and re-append): it fetches the projected columns of the surviving rows and cannot merge them with
     * the candidates (fixed upstream after 0.39, lance PR #6042).
     */
    private static final String STALE_ROW_IDS = "Attempt to merge two RecordBatch with different sizes";

    /**
     * The rows of a vector-index search, in one batch: Lance answers a top-k sorted, and sorted batches after the
     * first come as slices the Arrow Java import misreads (see RowDeltas), so more than one batch is refused.
     * When the index's candidates include deleted rows, Lance fails the search; that is answered with no rows,
     * which callers treat like any short answer (the exact path answers instead).
     */
    static List<Map<String, Object>> nearest(TableRef ref, Dataset dataset, NearestRequest request) {
        Query query = new Query.Builder().setColumn(request.column()).setKey(request.key()).setK(request.k())
                .setNprobes(request.nprobes()).setDistanceType(DistanceType.L2).build();
        ScanOptions.Builder options = new ScanOptions.Builder().nearest(query).batchSize(Math.max(request.k(), 1024));
        if (!request.columns().isEmpty()) options.columns(request.columns());
        List<Map<String, Object>> rows = new ArrayList<>();
        int batches = 0;
        try (LanceScanner scanner = dataset.newScan(options.build()); ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                if (++batches > 1 && reader.getVectorSchemaRoot().getRowCount() > 0) {
                    throw new StorageFault("nearest on " + ref + " answered in more than one batch", null);
                }
                rows.addAll(ArrowRows.read(reader.getVectorSchemaRoot()));
            }
        } catch (StorageFault e) {
            throw e;
        } catch (Exception e) {
            if (String.valueOf(e.getMessage()).contains(STALE_ROW_IDS)) return List.of();
            throw LanceFailures.translate("nearest", ref, e);
        }
        return rows;
    }

    private static IndexType type(IndexSpec spec) {
        return switch (spec.kind()) {
            case BTREE -> IndexType.BTREE;
            case BITMAP -> IndexType.BITMAP;
            case INVERTED -> IndexType.INVERTED;
            case VECTOR -> IndexType.VECTOR; // IVF_FLAT/IVF_PQ are refused by name in 0.39; params pick the kind
        };
    }

    private static IndexParams params(IndexSpec spec) {
        IndexParams.Builder builder = IndexParams.builder();
        return switch (spec.kind()) {
            case BTREE -> builder.setScalarIndexParams(ScalarIndexParams.create("btree")).build();
            case BITMAP -> builder.setScalarIndexParams(ScalarIndexParams.create("bitmap")).build();
            case INVERTED -> builder.setScalarIndexParams(LanceFullText.PARAMS).build(); // the engine's tokenizer
            case VECTOR -> builder.setVectorIndexParams(VectorIndexParams.ivfFlat(spec.partitions(), DistanceType.L2)).build();
        };
    }
}
