package dev.omnigraph.storage;

import com.lancedb.lance.Dataset;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.NotFound;
import java.util.List;
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
        return datasets.with("createBranch", from, OptionalLong.empty(), (dataset, allocator) -> {
            List<String> live = LanceDatasets.branchesOf(from.path(), allocator).stream().map(LanceBranch::name).toList();
            if (live.contains(name)) {
                throw new Conflict("branch " + name + " already exists on " + from.path());
            }
            LanceBranchNames.requireDisjoint(name, live);
            BranchTrees.reclaimOrphanTree(from.path(), name);
            // Branching from a branch only works through a dataset opened on that branch (lance-java.md §7).
            try (Dataset fork = from.branch().isPresent()
                    ? dataset.branches().create(name, fromVersion, from.branch().get())
                    : dataset.branches().create(name, fromVersion)) {
                // The returned dataset has no allocator; it is only closed.
            }
            return LanceDatasets.branchesOf(from.path(), allocator).stream()
                    .filter(branch -> branch.name().equals(name)).findFirst()
                    .orElseThrow(() -> new NotFound("branch", name, "branch " + name + " vanished right after creation"));
        });
    }

    Mono<Void> delete(String path, String name) {
        LanceBranchNames.requireValid(name);
        return datasets.with("deleteBranch", TableRef.main(path), OptionalLong.empty(), (dataset, allocator) -> {
            if (dataset.branches().list().stream().noneMatch(branch -> branch.getName().equals(name))) {
                throw new NotFound("branch", name, "branch " + name + " does not exist on this dataset");
            }
            dataset.branches().delete(name);
            return Boolean.TRUE;
        }).then();
    }

    Mono<List<LanceBranch>> list(String path) {
        return datasets.withAllocator("listBranches", TableRef.main(path),
                allocator -> LanceDatasets.branchesOf(path, allocator));
    }
}
