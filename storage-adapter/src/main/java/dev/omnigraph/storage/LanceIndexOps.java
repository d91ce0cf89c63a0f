package dev.omnigraph.storage;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import reactor.core.publisher.Mono;

/** The index part of {@link LanceTableStorage}: index builds, their coverage, and vector search. */
final class LanceIndexOps {
    private final LanceDatasets datasets;

    LanceIndexOps(LanceDatasets datasets) {
        this.datasets = datasets;
    }

    Mono<List<String>> names(TableRef ref, long version) {
        return datasets.with("indexNames", ref, OptionalLong.of(version), (dataset, allocator) -> LanceIndexes.names(dataset));
    }

    Mono<Long> create(TableRef ref, long expectedVersion, IndexSpec spec) {
        return datasets.with("createIndex", ref, OptionalLong.empty(),
                (dataset, allocator) -> LanceIndexes.create(ref, dataset, expectedVersion, spec, false));
    }

    Mono<Long> rebuild(TableRef ref, long expectedVersion, IndexSpec spec) {
        return datasets.with("rebuildIndex", ref, OptionalLong.empty(),
                (dataset, allocator) -> LanceIndexes.create(ref, dataset, expectedVersion, spec, true));
    }

    Mono<List<String>> partial(TableRef ref, long version, double unindexedShare) {
        // The coverage first: where it cannot be read (not a local root) or there is no index, nothing is opened.
        return datasets.storage().call(() -> LanceIndexCoverage.read(ref, version).orElse(Map.of()))
                .flatMap(coverage -> coverage.isEmpty() ? Mono.just(List.<String>of())
                        : datasets.with("partialIndexes", ref, OptionalLong.of(version), (dataset, allocator) -> {
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
                        }));
    }

    Mono<List<Map<String, Object>>> nearest(TableSnapshot snapshot, NearestRequest request) {
        return datasets.with("nearest", snapshot.ref(), OptionalLong.of(snapshot.version()),
                (dataset, allocator) -> LanceIndexes.nearest(snapshot.ref(), dataset, request));
    }
}
