package dev.omnigraph.storage;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import reactor.core.publisher.Mono;

/** The index part of {@link LanceTableStorage}: staged index work, index coverage, and vector search. */
final class LanceIndexOps {
    private final LanceDatasets datasets;
    private final LanceStaging staging;

    LanceIndexOps(LanceDatasets datasets, LanceStaging staging) {
        this.datasets = datasets;
        this.staging = staging;
    }

    Mono<List<String>> names(TableRef ref, long version) {
        return datasets.with("indexNames", ref, OptionalLong.of(version), (dataset, allocator) -> LanceIndexes.names(dataset));
    }

    /** One CreateIndex transaction with every segment {@code specs} need at the snapshot; empty when none needs any. */
    Mono<Optional<StagedHandle>> stage(TableSnapshot snapshot, List<IndexSpec> specs, Map<String, String> properties,
                                       SegmentMerge merge) {
        return staging.stageCounted("stageIndexes", snapshot, properties, (dataset, allocator) ->
                LanceIndexes.stage(dataset, specs, merge).map(operation -> new LanceStaging.CountedOperation(operation, OptionalLong.of(0))));
    }

    Mono<List<String>> partial(TableRef ref, long version, double unindexedShare) {
        return datasets.with("partialIndexes", ref, OptionalLong.of(version), (dataset, allocator) -> {
            Map<String, Set<Integer>> coverage = LanceIndexes.coverage(dataset);
            if (coverage.isEmpty()) {
                return List.<String>of();
            }
            Map<Integer, Long> rows = new HashMap<>();
            dataset.getFragments().forEach(fragment -> rows.put(fragment.getId(), fragment.metadata().getNumRows()));
            long total = rows.values().stream().mapToLong(Long::longValue).sum();
            return coverage.entrySet().stream().filter(index -> {
                Set<Integer> covered = index.getValue();
                if (covered.containsAll(rows.keySet())) {
                    return false;
                }
                long unindexed = rows.entrySet().stream().filter(f -> !covered.contains(f.getKey()))
                        .mapToLong(Map.Entry::getValue).sum();
                return unindexedShare <= 0 || unindexed > unindexedShare * total;
            }).map(Map.Entry::getKey).sorted().toList();
        });
    }

    /** The specs among {@code specs} that {@code index ensure} creates at {@code version} of {@code ref}, in order. */
    Mono<List<IndexSpec>> toCreate(TableRef ref, long version, List<IndexSpec> specs) {
        return datasets.with("indexesToCreate", ref, OptionalLong.of(version), (dataset, allocator) ->
                specs.stream().filter(spec -> LanceIndexes.toCreate(dataset, spec)).toList());
    }

    /** The specs among {@code specs} that need work at {@code version} of {@code ref}, in order. */
    Mono<List<IndexSpec>> needingWork(TableRef ref, long version, List<IndexSpec> specs) {
        return datasets.with("indexWork", ref, OptionalLong.of(version), (dataset, allocator) ->
                specs.stream().filter(spec -> LanceIndexes.need(dataset, spec) != LanceIndexes.Need.NONE).toList());
    }

    Mono<List<Map<String, Object>>> nearest(TableSnapshot snapshot, NearestRequest request) {
        return datasets.with("nearest", snapshot.ref(), OptionalLong.of(snapshot.version()),
                (dataset, allocator) -> InheritedIndexes.usable(snapshot.ref(), allocator)
                        ? LanceIndexes.nearest(snapshot.ref(), dataset, request)
                        : List.<Map<String, Object>>of()); // an unreadable inherited index: callers search exactly
    }
}
