package dev.omnigraph.storage;

import org.lance.Branch;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.WriteParams;
import dev.omnigraph.storage.error.NotFound;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import reactor.core.publisher.Mono;

/**
 * What the parts of {@link LanceTableStorage} share: the storage scheduler, the root allocator, and how a task
 * opens a dataset. Every task opens its own {@code Dataset} with its own child allocator and closes both before
 * returning (a shared {@code Dataset} serialises all its native calls; an unclosed one leaks native memory; a
 * leaked Arrow buffer fails the allocator's close).
 */
final class LanceDatasets {
    /**
     * The data-file format of tables this build creates by default (docs/architecture.md, "File format"). A table
     * keeps the format it was created with: Lance refuses a commit that mixes file versions, so staged files are
     * written in the table's own format ({@link #formatOf}).
     */
    static final String NEW_TABLE_FORMAT = "2.1";
    /** The formats a new table may be given: 2.0 (what the 0.39 builds wrote) and 2.1; 2.2 is still Lance's "next". */
    static final java.util.Set<String> CREATABLE_FORMATS = java.util.Set.of("2.0", "2.1");

    private final StorageScheduler storage;
    private final String newTableFormat;
    private final BufferAllocator rootAllocator = new RootAllocator();
    private final LanceHandles handles = new LanceHandles(this, LanceHandles.configuredCapacity());

    LanceDatasets(StorageScheduler storage, String newTableFormat) {
        if (!CREATABLE_FORMATS.contains(newTableFormat)) {
            throw new IllegalArgumentException("new tables can use Lance file format 2.0 or 2.1, not " + newTableFormat);
        }
        this.storage = storage;
        this.newTableFormat = newTableFormat;
        LanceThreads.checkOnce();
    }

    /** The file format {@code create} gives a new table. */
    String newTableFormat() {
        return newTableFormat;
    }

    StorageScheduler storage() {
        return storage;
    }

    BufferAllocator childAllocator(String purpose) {
        return rootAllocator.newChildAllocator(purpose, 0, Long.MAX_VALUE);
    }

    /** Datasets kept open for scans of pinned main-ref versions. */
    LanceHandles handles() {
        return handles;
    }

    /** Closes the kept datasets, then fails loudly if any Arrow buffer leaked. */
    void close() {
        handles.closeAll();
        rootAllocator.close();
    }

    static Dataset open(BufferAllocator allocator, TableRef ref, OptionalLong version) {
        return open(allocator, ref, version, LanceStorageOptions.forUri(ref.uri()));
    }

    /** As {@link #open(BufferAllocator, TableRef, OptionalLong)}, with storage options the caller resolved. */
    static Dataset open(BufferAllocator allocator, TableRef ref, OptionalLong version, java.util.Map<String, String> storageOptions) {
        ReadOptions.Builder options = new ReadOptions.Builder().setStorageOptions(storageOptions);
        LanceSession.shared().ifPresent(options::setSession);
        if (version.isPresent()) {
            options.setVersion(version.getAsLong());
        }
        return Dataset.open(allocator, ref.uri(), options.build());
    }

    /** Runs {@code work} on a storage thread with the dataset opened at {@code version} (latest when empty). */
    <T> Mono<T> with(String operation, TableRef ref, OptionalLong version, DatasetWork<T> work) {
        return withAllocator(operation, ref, allocator -> {
            try (Dataset dataset = open(allocator, ref, version)) {
                return work.apply(dataset, allocator);
            }
        });
    }

    /** Runs {@code work} on a storage thread with a child allocator of its own; Lance failures come out typed. */
    <T> Mono<T> withAllocator(String operation, TableRef ref, AllocatorWork<T> work) {
        return storage.call(() -> {
            StorageScheduler.requireStorageThread(operation);
            try (BufferAllocator allocator = childAllocator(operation)) {
                return work.apply(allocator);
            } catch (Exception e) {
                throw LanceFailures.translate(operation, ref, e);
            }
        });
    }

    /** The data-file format {@code dataset} was created with ("2.0" for tables of the 0.39 builds). */
    static String formatOf(Dataset dataset) {
        return dataset.getLanceFileFormatVersion();
    }

    static TableSnapshot snapshotOf(TableRef ref, Dataset dataset) {
        return snapshotOf(ref, dataset, dataset.getFragments().size());
    }

    /** As {@link #snapshotOf(TableRef, Dataset)}, with the fragment count a caller already listed. */
    static TableSnapshot snapshotOf(TableRef ref, Dataset dataset, int fragmentCount) {
        return new TableSnapshot(ref, dataset.version(), dataset.getSchema(), dataset.countRows(), fragmentCount,
                dataset.getVersion().getDataTime().toInstant());
    }

    static List<LanceBranch> branchesOf(String path, BufferAllocator allocator) {
        try (Dataset main = open(allocator, TableRef.main(path), OptionalLong.empty())) {
            List<LanceBranch> out = new ArrayList<>();
            for (Branch branch : main.branches().list()) {
                out.add(new LanceBranch(branch.getName(), branch.getParentBranch(), branch.getParentVersion(),
                        branch.getCreateAt()));
            }
            out.sort(Comparator.comparing(LanceBranch::name));
            return List.copyOf(out);
        }
    }

    /** The version a branch ref forked at (its first version, a Clone); empty for main. */
    static OptionalLong forkOf(TableRef ref, BufferAllocator allocator) {
        if (ref.branch().isEmpty()) {
            return OptionalLong.empty();
        }
        String name = ref.branch().get();
        return OptionalLong.of(branchesOf(ref.path(), allocator).stream().filter(branch -> branch.name().equals(name))
                .mapToLong(LanceBranch::parentVersion).findFirst()
                .orElseThrow(() -> new NotFound("branch", name, "branch " + name + " does not exist on this dataset")));
    }

    @FunctionalInterface
    interface DatasetWork<T> {
        T apply(Dataset dataset, BufferAllocator allocator);
    }

    @FunctionalInterface
    interface AllocatorWork<T> {
        T apply(BufferAllocator allocator);
    }
}
