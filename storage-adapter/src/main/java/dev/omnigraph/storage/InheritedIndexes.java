package dev.omnigraph.storage;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Whether Lance can read the indexes a table ref inherited. Lance 7.0 looks for the files of an index that a branch of
 * a branch inherited from further up under its parent branch's tree ({@code tree/<parent>/_indices/…}) and fails
 * "not found" (observed: {@code NestedBranchIndexTest}); main and branches of main read them fine. On such a nested
 * branch, scans and counts run without scalar indexes (exact either way) and index searches answer "no index", so
 * the engine's exact paths answer. A branch's parent never changes while it exists, so the answer is kept per path and
 * branch, and forgotten when this process creates or deletes that branch.
 */
final class InheritedIndexes {
    private static final Map<String, Boolean> NESTED = new ConcurrentHashMap<>();

    private InheritedIndexes() {
    }

    /** True unless {@code ref} is a branch whose parent is another branch. */
    static boolean usable(TableRef ref, BufferAllocator allocator) {
        if (ref.branch().isEmpty()) {
            return true;
        }
        String name = ref.branch().get();
        return !NESTED.computeIfAbsent(key(ref.path(), name), key -> LanceDatasets.branchesOf(ref.path(), allocator).stream()
                .filter(branch -> branch.name().equals(name)).findFirst()
                .map(branch -> branch.parentBranch().isPresent()).orElse(false));
    }

    /** Forgets what was learnt about branch {@code name} of the dataset at {@code path}. */
    static void forget(String path, String name) {
        NESTED.remove(key(path, name));
    }

    private static String key(String path, String name) {
        return path + "\u0000" + name;
    }
}
