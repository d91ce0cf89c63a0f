package dev.omnigraph.storage;

import dev.omnigraph.storage.error.StorageFault;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.lance.Dataset;
import org.lance.index.DistanceType;
import org.lance.index.Index;
import org.lance.index.IndexOptions;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.BTreeIndexParams;
import org.lance.index.vector.IvfBuildParams;
import org.lance.index.vector.VectorIndexParams;
import org.lance.index.vector.VectorTrainer;
import org.lance.operation.CreateIndex;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.Query;
import org.lance.ipc.ScanOptions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToLongFunction;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Index work on an open dataset, staged: each index segment is written without a commit ({@code createIndex} with
 * explicit fragment ids writes files only; an inverted segment then gets its metadata merged, an IVF segment is built
 * on centroids trained first), and the segments are returned for ONE {@code CreateIndex} transaction that the caller
 * commits at the dataset's version + 1 (lance-java-7.md §4). An index the version lacks is built over every fragment;
 * one that misses fragments gets a delta segment over those. For a write ({@link SegmentMerge#TIERED}) the delta takes
 * in the smaller earlier segments ({@link #absorbed}: size-tiered, at most {@link #MAX_SEGMENTS}); for maintenance
 * ({@link SegmentMerge#DELTA}) it covers just the missing fragments, and an index at {@link #MAX_SEGMENTS} segments is
 * rebuilt whole. Segments not replaced, and the versions that share them, are left alone. A vector index is rebuilt
 * whole instead. Replaced segments are removed in the same transaction.
 */
final class LanceIndexes {
    /** Inverted indexes split text as the engine's own Tokenizer does ({@link LanceFullText#PARAMS}). */
    private static final IndexParams INVERTED = IndexParams.builder().setScalarIndexParams(LanceFullText.PARAMS).build();
    private static final IndexParams BTREE = IndexParams.builder()
            .setScalarIndexParams(BTreeIndexParams.builder().build()).build();
    /** Segments an index may have after a catch-up (each segment is one more lookup per query). */
    static final int MAX_SEGMENTS = 4;
    /** A vector index is retrained once the fragments it does not cover hold more than this share of the rows. */
    static final double VECTOR_RETRAIN_SHARE = 0.2;

    private LanceIndexes() {
    }

    static List<String> names(Dataset dataset) {
        return dataset.listIndexes().stream().distinct().sorted().toList(); // one entry per segment in Lance 7
    }

    /** The fragment ids each index of {@code dataset} covers (the union of its segments), by name. */
    static Map<String, Set<Integer>> coverage(Dataset dataset) {
        Map<String, Set<Integer>> out = new TreeMap<>();
        for (Index segment : dataset.getIndexes()) {
            out.computeIfAbsent(segment.name(), name -> new TreeSet<>()).addAll(segment.fragments().orElse(List.of()));
        }
        return out;
    }

    /** What one index needs at a version: nothing, a first build, a delta segment, or a whole rebuild. */
    enum Need { NONE, BUILD, EXTEND, REBUILD }

    /**
     * What {@code spec} needs at {@code dataset}'s version: a table without fragments needs nothing (there is nothing
     * to index; its first write builds it), a missing index a build, a partial one a delta (a vector index past
     * {@link #VECTOR_RETRAIN_SHARE} a rebuild), an outdated one a rebuild.
     */
    static Need need(Dataset dataset, IndexSpec spec) {
        Map<Integer, Long> rows = new TreeMap<>();
        dataset.getFragments().forEach(fragment -> rows.put(fragment.getId(), fragment.metadata().getNumRows()));
        if (rows.isEmpty()) {
            return Need.NONE;
        }
        if (!trainable(dataset, spec)) {
            return Need.NONE;
        }
        List<Index> segments = dataset.getIndexes().stream().filter(index -> index.name().equals(spec.name())).toList();
        if (segments.isEmpty()) {
            return Need.BUILD;
        }
        if (outdated(dataset, spec)) {
            return Need.REBUILD;
        }
        Set<Integer> covered = new TreeSet<>();
        segments.forEach(segment -> covered.addAll(segment.fragments().orElse(List.of())));
        long total = rows.values().stream().mapToLong(Long::longValue).sum();
        long unindexed = rows.entrySet().stream().filter(f -> !covered.contains(f.getKey())).mapToLong(Map.Entry::getValue).sum();
        if (covered.containsAll(rows.keySet())) {
            return Need.NONE;
        }
        if (spec.kind() == IndexSpec.Kind.VECTOR) {
            return unindexed > VECTOR_RETRAIN_SHARE * total ? Need.REBUILD : Need.NONE;
        }
        return Need.EXTEND; // which segments the delta takes in is decided when it is staged (absorbed)
    }

    /** What {@code index ensure} creates: an index the version lacks, or one built with other settings than today's. */
    static boolean toCreate(Dataset dataset, IndexSpec spec) {
        Need need = need(dataset, spec);
        return need == Need.BUILD || need == Need.REBUILD && outdated(dataset, spec);
    }

    /** An index built with other settings than today's: an inverted index of an earlier engine's tokenizer. */
    static boolean outdated(Dataset dataset, IndexSpec spec) {
        return spec.kind() == IndexSpec.Kind.INVERTED && dataset.listIndexes().contains(spec.name())
                && !LanceFullText.usable(dataset, spec.name());
    }

    /**
     * Whether the column holds what the index kind needs: an inverted index over text that is all NULL writes no
     * partition (Lance then refuses the segment), and IVF training needs a vector per partition.
     */
    private static boolean trainable(Dataset dataset, IndexSpec spec) {
        return spec.valuesNeeded() == 0 || dataset.countRows(spec.column() + " IS NOT NULL") >= spec.valuesNeeded();
    }

    /**
     * The segments {@code specs} need at {@code dataset}'s version, written but not committed, as one CreateIndex
     * operation; empty when none needs anything.
     */
    static Optional<CreateIndex> stage(Dataset dataset, List<IndexSpec> specs, SegmentMerge merge) {
        List<Index> added = new ArrayList<>();
        List<Index> removed = new ArrayList<>();
        for (IndexSpec spec : specs) {
            Need need = need(dataset, spec);
            if (need == Need.NONE) {
                continue;
            }
            List<Index> existing = dataset.getIndexes().stream().filter(index -> index.name().equals(spec.name())).toList();
            Map<Integer, Long> rows = new TreeMap<>();
            dataset.getFragments().forEach(fragment -> rows.put(fragment.getId(), fragment.metadata().getNumRows()));
            List<Integer> fragments = List.copyOf(rows.keySet());
            List<Index> replaced = need == Need.REBUILD ? existing : List.of();
            if (need == Need.EXTEND && merge == SegmentMerge.DELTA && existing.size() >= MAX_SEGMENTS) {
                replaced = existing; // one segment over every fragment
            } else if (need == Need.EXTEND) {
                Set<Integer> covered = new TreeSet<>();
                existing.forEach(segment -> covered.addAll(segment.fragments().orElse(List.of())));
                replaced = merge == SegmentMerge.DELTA ? List.of() : absorbed(existing, segment -> rowsOf(segment, rows),
                        rows.entrySet().stream().filter(f -> !covered.contains(f.getKey())).mapToLong(Map.Entry::getValue).sum());
                Set<Integer> merged = new TreeSet<>();
                replaced.forEach(segment -> merged.addAll(segment.fragments().orElse(List.of())));
                fragments = fragments.stream().filter(id -> !covered.contains(id) || merged.contains(id)).toList();
            }
            added.add(segment(dataset, spec, fragments, need != Need.BUILD));
            removed.addAll(replaced);
        }
        return added.isEmpty() ? Optional.empty()
                : Optional.of(CreateIndex.builder().withNewIndices(added).withRemovedIndices(removed).build());
    }

    /**
     * The segments a new delta of {@code deltaRows} rows takes in, size-tiered: smallest first, each no larger than
     * what the new segment holds so far, and more while the index would pass {@link #MAX_SEGMENTS}. A run of equal
     * bulk writes then merges like a binary counter, so each row is re-indexed about log(writes) times, where
     * rebuilding whole at the cap re-indexed the table every few writes (quadratic over a long load); the large
     * segments older versions share are left alone until the small ones grow to their size.
     */
    static <S> List<S> absorbed(List<S> segments, ToLongFunction<S> rowsOf, long deltaRows) {
        List<S> bySize = segments.stream().sorted(Comparator.comparingLong(rowsOf)).toList();
        List<S> taken = new ArrayList<>();
        long holds = deltaRows;
        for (S segment : bySize) {
            boolean overCap = segments.size() - taken.size() + 1 > MAX_SEGMENTS;
            if (!overCap && rowsOf.applyAsLong(segment) > holds) {
                break;
            }
            taken.add(segment);
            holds += rowsOf.applyAsLong(segment);
        }
        return taken;
    }

    /** The rows of the fragments of {@code rows} (the version's, by id) that {@code segment} covers. */
    private static long rowsOf(Index segment, Map<Integer, Long> rows) {
        return segment.fragments().orElse(List.of()).stream().mapToLong(id -> rows.getOrDefault(id, 0L)).sum();
    }

    /** One uncommitted segment of {@code spec} over {@code fragments}. */
    private static Index segment(Dataset dataset, IndexSpec spec, List<Integer> fragments, boolean nameExists) {
        IndexOptions options = IndexOptions.builder(List.of(spec.column()), type(spec), params(dataset, spec))
                .withIndexName(spec.name()).replace(nameExists).withFragmentIds(fragments).build();
        Index segment = dataset.createIndex(options);
        if (spec.kind() == IndexSpec.Kind.INVERTED) {
            // A segment built from explicit fragments has only its partition files until its metadata is merged.
            dataset.mergeIndexMetadata(segment.uuid().toString(), IndexType.INVERTED, Optional.empty());
        }
        return segment;
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
            case VECTOR -> IndexType.IVF_FLAT;
        };
    }

    /**
     * Build parameters. A vector segment needs its IVF centroids up front when built from explicit fragments, so they
     * are trained first (k-means over a sample of the column at this version), {@code spec.partitions()} of them.
     */
    private static IndexParams params(Dataset dataset, IndexSpec spec) {
        return switch (spec.kind()) {
            case BTREE -> BTREE;
            case BITMAP -> throw new StorageFault("bitmap indexes are no longer built (enums and booleans get a BTREE)", null);
            case INVERTED -> INVERTED;
            case VECTOR -> {
                IvfBuildParams.Builder ivf = new IvfBuildParams.Builder().setNumPartitions(spec.partitions());
                float[] centroids = VectorTrainer.trainIvfCentroids(dataset, spec.column(), ivf.build(), DistanceType.L2);
                yield IndexParams.builder().setVectorIndexParams(new VectorIndexParams.Builder(
                        ivf.setCentroids(centroids).build()).setDistanceType(DistanceType.L2).build()).build();
            }
        };
    }
}
