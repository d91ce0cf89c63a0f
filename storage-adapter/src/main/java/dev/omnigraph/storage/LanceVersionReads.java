package dev.omnigraph.storage;

import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import reactor.core.publisher.Mono;

/** The history part of {@link LanceTableStorage}: what each version of a table did, and how two versions differ. */
final class LanceVersionReads {
    private final LanceDatasets datasets;

    LanceVersionReads(LanceDatasets datasets) {
        this.datasets = datasets;
    }

    Mono<Long> head(TableRef ref) {
        return datasets.with("head", ref, OptionalLong.empty(), (dataset, allocator) -> dataset.version());
    }

    Mono<Optional<TransactionIdentity>> transactionAt(TableRef ref, long version) {
        return datasets.with("transactionAt", ref, OptionalLong.of(version), (dataset, allocator) -> {
            // A branch's first version (a Clone) is recognised first: reading its transaction aborts the JVM, and it
            // is never a commit a sidecar owns.
            OptionalLong fork = LanceDatasets.forkOf(ref, allocator);
            if (fork.isPresent() && version <= fork.getAsLong()) {
                // The fork itself is a Clone; below it the versions are the parent's, read as before.
                return version == fork.getAsLong() ? Optional.<TransactionIdentity>empty()
                        : dataset.readTransaction().map(TransactionIdentity::of);
            }
            return TableHistory.identityAt(ref, v -> LanceDatasets.open(allocator, ref, OptionalLong.of(v)), version, fork);
        });
    }

    Mono<Boolean> sameFragments(TableRef ref, long base, long upTo) {
        return datasets.with("sameFragments", ref, OptionalLong.of(upTo), (dataset, allocator) -> {
            List<FragmentMetadata> expected = fragmentsAt(dataset, base);
            for (long version = base + 1; version <= upTo; version++) {
                if (!fragmentsAt(dataset, version).equals(expected)) return false;
            }
            return true;
        });
    }

    Mono<List<String>> operationsBetween(TableRef ref, long after, long upTo) {
        return datasets.with("operationsBetween", ref, OptionalLong.of(upTo), (dataset, allocator) ->
                TableHistory.operations(ref, dataset, after, upTo, LanceDatasets.forkOf(ref, allocator)));
    }

    Mono<List<Optional<TransactionMark>>> transactionMarks(TableRef ref, long after, long upTo, String key) {
        return datasets.with("transactionMarks", ref, OptionalLong.of(upTo), (dataset, allocator) ->
                // Each version opened through the ref itself: a branch's versions live in its own tree.
                TableHistory.marks(ref, version -> LanceDatasets.open(allocator, ref, OptionalLong.of(version)), after,
                        upTo, LanceDatasets.forkOf(ref, allocator), key));
    }

    /** Live rows (physical minus deleted) of each fragment, by id in the dataset's order. */
    Mono<Map<Integer, Long>> liveRowsByFragment(TableSnapshot snapshot) {
        return datasets.with("liveRowsByFragment", snapshot.ref(), OptionalLong.of(snapshot.version()), (dataset, allocator) -> {
            Map<Integer, Long> rows = new LinkedHashMap<>();
            dataset.getFragments().forEach(fragment -> rows.put(fragment.getId(), fragment.metadata().getNumRows()));
            return rows;
        });
    }

    Mono<FragmentDiff> fragmentDiff(TableSnapshot before, TableSnapshot after, int maxPickedRows) {
        return datasets.with("fragmentDiff", before.ref(), OptionalLong.of(before.version()), (old, allocator) -> {
            try (Dataset current = LanceDatasets.open(allocator, after.ref(), OptionalLong.of(after.version()))) {
                return LanceFragmentDiff.between(old, current, before.ref().path().equals(after.ref().path()), maxPickedRows);
            }
        });
    }

    private static List<FragmentMetadata> fragmentsAt(Dataset latest, long version) {
        try (Dataset at = latest.checkoutVersion(version)) {
            return metadataOf(at);
        }
    }

    private static List<FragmentMetadata> metadataOf(Dataset dataset) {
        return dataset.getFragments().stream().map(Fragment::metadata).toList();
    }
}
