package dev.omnigraph.storage;

import org.lance.Dataset;
import org.lance.Ref;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.NotFound;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import reactor.core.publisher.Mono;

/** The branch part of {@link LanceTableStorage}: Lance branches (refs) of one dataset. */
final class LanceBranchOps {
    private final LanceDatasets datasets;

    LanceBranchOps(LanceDatasets datasets) {
        this.datasets = datasets;
    }

    Mono<LanceBranch> create(TableRef from, long fromVersion, String name) {
        LanceBranchNames.requireValid(name);
        return datasets.with("createBranch", TableRef.main(from.path()), OptionalLong.empty(), (dataset, allocator) -> {
            List<String> live = LanceDatasets.branchesOf(from.path(), allocator).stream().map(LanceBranch::name).toList();
            if (live.contains(name)) {
                throw new Conflict("branch " + name + " already exists on " + from.path());
            }
            LanceBranchNames.requireDisjoint(name, live);
            BranchTrees.reclaimOrphanTree(from.path(), name);
            InheritedIndexes.forget(from.path(), name);
            try (Dataset fork = fork(dataset, from, fromVersion, name)) {
                // The returned dataset has no allocator; it is only closed.
            }
            return LanceDatasets.branchesOf(from.path(), allocator).stream()
                    .filter(branch -> branch.name().equals(name)).findFirst()
                    .orElseThrow(() -> new NotFound("branch", name, "branch " + name + " vanished right after creation"));
        });
    }

    /**
     * Forks {@code name} off {@code from} at {@code fromVersion}. Lance 7 forks a branch off a branch correctly only
     * through a dataset checked out on the parent branch: called on main's object with the parent's ref it records
     * the right parent but takes main's data at that version (lance-java-7.md §8). On an object store the root's
     * storage options go along: Lance opens the new branch tree with a store of its own, and without them it cannot
     * reach an S3-compatible endpoint ("Failed to resolve region for bucket").
     */
    private static Dataset fork(Dataset main, TableRef from, long fromVersion, String name) {
        Map<String, String> options = LanceStorageOptions.forUri(from.path());
        if (from.branch().isEmpty()) {
            return branch(main, name, Ref.ofMain(fromVersion), options);
        }
        String parent = from.branch().get();
        try (Dataset onParent = main.checkout(Ref.ofBranch(parent))) {
            return branch(onParent, name, Ref.ofBranch(parent, fromVersion), options);
        }
    }

    private static Dataset branch(Dataset on, String name, Ref at, Map<String, String> options) {
        return options.isEmpty() ? on.createBranch(name, at) : on.createBranch(name, at, options);
    }

    Mono<Void> delete(String path, String name) {
        LanceBranchNames.requireValid(name);
        return datasets.with("deleteBranch", TableRef.main(path), OptionalLong.empty(), (dataset, allocator) -> {
            if (dataset.branches().list().stream().noneMatch(branch -> branch.getName().equals(name))) {
                throw new NotFound("branch", name, "branch " + name + " does not exist on this dataset");
            }
            dataset.branches().delete(name);
            InheritedIndexes.forget(path, name);
            return Boolean.TRUE;
        }).then();
    }

    Mono<List<LanceBranch>> list(String path) {
        return datasets.withAllocator("listBranches", TableRef.main(path),
                allocator -> LanceDatasets.branchesOf(path, allocator));
    }
}
