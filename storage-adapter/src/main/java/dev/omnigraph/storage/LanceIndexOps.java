package dev.omnigraph.storage;

import java.util.HashSet;
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

    Mono<List<String>> partial(TableRef ref, long version) {
        // The coverage first: where it cannot be read (not a local root) or there is no index, nothing is opened.
        return datasets.storage().call(() -> LanceIndexCoverage.read(ref, version).orElse(Map.of()))
                .flatMap(coverage -> coverage.isEmpty() ? Mono.just(List.<String>of())
                        : datasets.with("partialIndexes", ref, OptionalLong.of(version), (dataset, allocator) -> {
                            Set<Integer> fragments = new HashSet<>();
                            dataset.getFragments().forEach(fragment -> fragments.add(fragment.getId()));
                            return coverage.entrySet().stream().filter(index -> !index.getValue().containsAll(fragments))
                                    .map(Map.Entry::getKey).sorted().toList();
                        }));
    }

    Mono<List<Map<String, Object>>> nearest(TableSnapshot snapshot, NearestRequest request) {
        return datasets.with("nearest", snapshot.ref(), OptionalLong.of(snapshot.version()),
                (dataset, allocator) -> LanceIndexes.nearest(snapshot.ref(), dataset, request));
    }
}
