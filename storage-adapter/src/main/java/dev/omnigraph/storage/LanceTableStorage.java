package dev.omnigraph.storage;

import com.lancedb.lance.Branch;
import com.lancedb.lance.Dataset;
import com.lancedb.lance.Fragment;
import com.lancedb.lance.FragmentMetadata;
import com.lancedb.lance.ReadOptions;
import com.lancedb.lance.Transaction;
import com.lancedb.lance.WriteParams;
import com.lancedb.lance.compaction.Compaction;
import com.lancedb.lance.compaction.CompactionOptions;
import com.lancedb.lance.compaction.CompactionPlan;
import com.lancedb.lance.compaction.CompactionTask;
import com.lancedb.lance.compaction.RewriteResult;
import com.lancedb.lance.ipc.LanceScanner;
import com.lancedb.lance.ipc.ScanOptions;
import com.lancedb.lance.operation.Append;
import com.lancedb.lance.operation.Delete;
import com.lancedb.lance.operation.Operation;
import com.lancedb.lance.operation.Overwrite;
import com.lancedb.lance.operation.Restore;
import com.lancedb.lance.operation.Update;
import com.lancedb.lance.operation.UpdateConfig;
import com.lancedb.lance.operation.UpdateMap;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.NotFound;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@link TableStorage} on lance-core. Every task opens its own {@code Dataset} with its own child allocator
 * and closes both before returning (a shared {@code Dataset} serialises all its native calls; an unclosed one
 * leaks native memory; a leaked Arrow buffer fails the allocator's close).
 */
public final class LanceTableStorage implements TableStorage {
    private static final List<String> AUTO_CLEANUP_KEYS =
            List.of("lance.auto_cleanup.interval", "lance.auto_cleanup.older_than");
    /** Lance 0.39 calls 2.2 unstable ("may not be readable in the future"); data we keep must use the stable format. */
    private static final WriteParams.LanceFileVersion FILE_VERSION = WriteParams.LanceFileVersion.STABLE;
    /** Ids per {@code IN (...)} list when locating rows to replace. */
    private static final int KEY_CHUNK = 1024;

    private final StorageScheduler storage;
    private final BufferAllocator rootAllocator = new RootAllocator();
    private final java.util.concurrent.atomic.AtomicInteger openScans = new java.util.concurrent.atomic.AtomicInteger();
    /**
     * The schema an upsert last found per table ref: the next upsert of a pinned (schema-less) snapshot writes its
     * fragment with it beside the key scan, and the commit uses that fragment only if the opened version's schema
     * equals it (otherwise it writes the fragment again), so a stale entry costs time, never correctness.
     */
    private final Map<TableRef, Schema> upsertSchemas = new java.util.concurrent.ConcurrentHashMap<>();

    public LanceTableStorage(StorageScheduler storage) {
        this.storage = storage;
    }

    @Override
    public Mono<TableSnapshot> create(String path, Schema schema) {
        TableRef ref = TableRef.main(path);
        return storage.call(() -> {
            StorageScheduler.requireStorageThread("create");
            try (BufferAllocator allocator = childAllocator("create");
                 Dataset created = Dataset.create(allocator, path, schema, new WriteParams.Builder()
                         .withEnableStableRowIds(true).withDataStorageVersion(FILE_VERSION)
                         .withStorageOptions(LanceStorageOptions.forUri(path)).build())) {
                // Auto-cleanup ignores branches and manifest pins; version GC is ours alone.
                Map<String, String> removals = new HashMap<>();
                AUTO_CLEANUP_KEYS.forEach(key -> removals.put(key, null));
                Operation noCleanup = UpdateConfig.builder()
                        .configUpdates(UpdateMap.builder().updates(removals).replace(false).build()).build();
                try (Dataset configured = created.newTransactionBuilder().operation(noCleanup).build().commit()) {
                    return snapshotOf(ref, configured);
                }
            } catch (Exception e) {
                throw LanceFailures.translate("create", ref, e);
            }
        });
    }

    @Override
    public Mono<TableSnapshot> open(TableRef ref, OptionalLong version) {
        return withDataset("open", ref, version, (dataset, allocator) -> snapshotOf(ref, dataset));
    }

    @Override
    public Flux<RowBatch> scan(TableSnapshot snapshot, ScanRequest request) {
        if (request.fragments().filter(List::isEmpty).isPresent()) {
            return Flux.empty(); // no fragment: Lance would read them all
        }
        return batches(snapshot, request, (scan, root) -> new RowBatch(scan.columns(), ArrowRows.read(root)));
    }

    @Override
    public Mono<java.util.Set<String>> keysAmong(TableSnapshot snapshot, String column,
                                                 java.util.function.Predicate<String> wanted) {
        KeyColumnMatch match = new KeyColumnMatch(column, wanted);
        ScanRequest request = ScanRequest.all().withColumns(List.of(column)).withBatchSize(KeyColumnMatch.BATCH_ROWS);
        return batches(snapshot, request, (scan, root) -> match.add(root)).then(Mono.fromSupplier(match::found));
    }

    /** Each scanned batch, converted while its Arrow memory is live; Lance resources closed on end, error or cancel. */
    private <T> Flux<T> batches(TableSnapshot snapshot, ScanRequest request,
                                java.util.function.BiFunction<OpenScan, VectorSchemaRoot, T> convert) {
        return Flux.<T, OpenScan>generate(
                        () -> {
                            OpenScan scan = OpenScan.start(this, snapshot, request);
                            openScans.incrementAndGet();
                            return scan;
                        },
                        (scan, sink) -> {
                            try {
                                if (scan.reader().loadNextBatch()) {
                                    sink.next(convert.apply(scan, scan.reader().getVectorSchemaRoot()));
                                } else {
                                    sink.complete();
                                }
                            } catch (Exception e) {
                                sink.error(LanceFailures.translate("scan", snapshot.ref(), e));
                            }
                            return scan;
                        },
                        this::closeScan)
                .subscribeOn(storage.scheduler());
    }

    @Override
    public Mono<Long> count(TableSnapshot snapshot, Optional<String> filter) {
        return withDataset("count", snapshot.ref(), OptionalLong.of(snapshot.version()),
                (dataset, allocator) -> filter.map(FilterBounds::check).map(dataset::countRows).orElseGet(dataset::countRows));
    }

    @Override
    public Mono<StagedHandle> stageAppend(TableSnapshot snapshot, List<Map<String, Object>> rows,
                                          Map<String, String> properties) {
        if (rows.isEmpty()) {
            return Mono.error(new BadRequest("nothing to append to " + snapshot.ref() + ": no rows"));
        }
        return stageCounted("stageAppend", snapshot, properties, (dataset, allocator) -> Optional.of(new CountedOperation(
                Append.builder().fragments(writeFragments(snapshot.ref(), dataset, rows, allocator)).build(),
                OptionalLong.of(rows.size()))))
                .map(Optional::get);
    }

    @Override
    public Mono<StagedHandle> stageUpsert(TableSnapshot snapshot, List<Map<String, Object>> rows, String keyColumn,
                                          Map<String, String> properties) {
        Schema seen = snapshot.schema() == null ? upsertSchemas.get(snapshot.ref()) : null;
        if (seen != null) {
            // Version time unknown (EPOCH): no address is ever trusted, so the replaced rows are found by key.
            TableSnapshot withSchema = new TableSnapshot(snapshot.ref(), snapshot.version(), seen, snapshot.rowCount(),
                    snapshot.fragmentCount());
            return stageUpsertAt(withSchema, Map.of(), rows, keyColumn, properties);
        }
        return stageUpsertAt(snapshot, null, rows, keyColumn, properties, "stageUpsert");
    }

    /**
     * With the snapshot's schema at hand (a snapshot that was opened, as the manifest publisher's is), the new
     * rows' fragment is written on one storage thread while the dataset is opened and the deletion files are
     * written on another: neither needs the other, and both are invisible until the commit.
     */
    @Override
    public Mono<StagedHandle> stageUpsertAt(TableSnapshot snapshot, Map<String, Long> knownAddresses,
                                            List<Map<String, Object>> rows, String keyColumn,
                                            Map<String, String> properties) {
        if (snapshot.schema() == null) {
            return stageUpsertAt(snapshot, Map.copyOf(knownAddresses), rows, keyColumn, properties, "stageUpsertAt");
        }
        Map<String, Long> known = Map.copyOf(knownAddresses);
        List<String> keys;
        try {
            if (rows.isEmpty()) {
                throw new BadRequest("nothing to upsert into " + snapshot.ref() + ": no rows");
            }
            keys = distinctKeys(snapshot.ref(), rows, keyColumn);
        } catch (BadRequest refused) {
            return Mono.error(refused);
        }
        TableRef ref = snapshot.ref();
        Mono<List<FragmentMetadata>> fragments = storage.call(() -> {
            StorageScheduler.requireStorageThread("stageUpsertAt");
            try (BufferAllocator allocator = childAllocator("stageUpsertAt.fragments")) {
                return writeFragments(ref, snapshot.schema(), rows, allocator);
            } catch (Exception e) {
                throw LanceFailures.translate("stageUpsertAt", ref, snapshot.version(), e);
            }
        });
        Mono<PendingUpdate> deletions = storage.call(() -> {
            StorageScheduler.requireStorageThread("stageUpsertAt");
            BufferAllocator allocator = childAllocator("stageUpsertAt");
            Dataset dataset = null;
            try {
                dataset = openDataset(allocator, ref, OptionalLong.of(snapshot.version()));
                RowDeletions found = RowDeletions.at(dataset, snapshot, keys.stream().filter(known::containsKey)
                        .map(known::get).toList());
                if (found == null) {
                    found = deletionsByKey(dataset, keys, keyColumn);
                }
                return new PendingUpdate(allocator, dataset, found.stage(dataset));
            } catch (Exception e) {
                if (dataset != null) dataset.close();
                allocator.close();
                throw LanceFailures.translate("stageUpsertAt", ref, snapshot.version(), e);
            }
        });
        return Mono.zip(deletions.materialize(), fragments.materialize()).flatMap(both -> {
            if (both.getT1().isOnError()) {
                return Mono.error(both.getT1().getThrowable()); // written fragment files are reclaimable garbage
            }
            PendingUpdate pending = both.getT1().get();
            return storage.call(() -> {
                try {
                    // A snapshot schema that is not the dataset's (a remembered one gone stale) must not reach a
                    // commit: the rows are written again with the dataset's own, which also reports a failure of the
                    // early write that was not the schema's fault.
                    Schema actual = pending.dataset().getSchema();
                    upsertSchemas.put(ref, actual);
                    List<FragmentMetadata> added = both.getT2().hasValue() && actual.equals(snapshot.schema())
                            ? both.getT2().get()
                            : writeFragments(ref, pending.dataset(), rows, pending.allocator());
                    Transaction transaction = pending.dataset().newTransactionBuilder()
                            .readVersion(snapshot.version())
                            .transactionProperties(Map.copyOf(properties))
                            .operation(Update.builder()
                                    .removedFragmentIds(pending.deletions().removedFragmentIds())
                                    .updatedFragments(pending.deletions().updatedFragments())
                                    .newFragments(added)
                                    .build())
                            .build();
                    return (StagedHandle) new LanceStagedHandle(ref, pending.allocator(), pending.dataset(), transaction,
                            OptionalLong.of(rows.size() - pending.deletions().rows()));
                } catch (Exception e) {
                    pending.close();
                    throw LanceFailures.translate("stageUpsertAt", ref, snapshot.version(), e);
                }
            });
        });
    }

    /** An Update being staged: its dataset and allocator (handed to the handle) and its deletion files. */
    private record PendingUpdate(BufferAllocator allocator, Dataset dataset, RowDeletions.Staged deletions) {
        void close() {
            dataset.close();
            allocator.close();
        }
    }

    private static RowDeletions deletionsByKey(Dataset dataset, List<String> keys, String keyColumn) {
        RowDeletions deletions = new RowDeletions();
        for (int from = 0; from < keys.size(); from += KEY_CHUNK) {
            List<String> chunk = keys.subList(from, Math.min(keys.size(), from + KEY_CHUNK));
            deletions.collect(dataset, SqlLiterals.inList(keyColumn, chunk));
        }
        return deletions;
    }

    /** {@code knownAddresses} null: find the replaced rows by key (a filtered scan). */
    private Mono<StagedHandle> stageUpsertAt(TableSnapshot snapshot, Map<String, Long> knownAddresses,
                                             List<Map<String, Object>> rows, String keyColumn,
                                             Map<String, String> properties, String operation) {
        if (rows.isEmpty()) {
            return Mono.error(new BadRequest("nothing to upsert into " + snapshot.ref() + ": no rows"));
        }
        return stageDelta(snapshot, knownAddresses, rows, List.of(), keyColumn, properties, operation).map(Optional::get);
    }

    @Override
    public Mono<Optional<StagedHandle>> stageRowDelta(TableSnapshot snapshot, List<Map<String, Object>> rows,
                                                      List<String> deleteKeys, String keyColumn,
                                                      Map<String, String> properties) {
        return stageDelta(snapshot, null, rows, deleteKeys, keyColumn, properties, "stageRowDelta");
    }

    /** One Update: deletions (at {@code knownAddresses} when given and valid, else found by key) plus new rows. */
    private Mono<Optional<StagedHandle>> stageDelta(TableSnapshot snapshot, Map<String, Long> knownAddresses,
                                                    List<Map<String, Object>> rows, List<String> deleteKeys,
                                                    String keyColumn, Map<String, String> properties,
                                                    String operation) {
        List<String> keys;
        try {
            keys = new ArrayList<>(distinctKeys(snapshot.ref(), rows, keyColumn));
            if (new HashSet<>(keys).removeAll(deleteKeys) || new HashSet<>(deleteKeys).size() != deleteKeys.size()) {
                throw new BadRequest("row delta on " + snapshot.ref() + ": a key is both written and deleted, or deleted twice");
            }
            keys.addAll(deleteKeys);
        } catch (BadRequest refused) {
            return Mono.error(refused);
        }
        return stageCounted(operation, snapshot, properties, (dataset, allocator) -> {
            if (!rows.isEmpty()) {
                upsertSchemas.put(snapshot.ref(), dataset.getSchema());
            }
            RowDeletions deletions = knownAddresses == null ? null
                    : RowDeletions.at(dataset, snapshot, keys.stream().filter(knownAddresses::containsKey)
                            .map(knownAddresses::get).toList());
            if (deletions == null) {
                deletions = deletionsByKey(dataset, keys, keyColumn);
            }
            if (deletions.isEmpty() && rows.isEmpty()) {
                return Optional.empty();
            }
            RowDeletions.Staged staged = deletions.stage(dataset);
            List<FragmentMetadata> added = rows.isEmpty() ? List.of() : writeFragments(snapshot.ref(), dataset, rows, allocator);
            return Optional.of(new CountedOperation(Update.builder()
                    .removedFragmentIds(staged.removedFragmentIds())
                    .updatedFragments(staged.updatedFragments())
                    .newFragments(added)
                    .build(), OptionalLong.of(rows.size() - deletions.size())));
        });
    }

    @Override
    public Mono<Optional<StagedHandle>> stageDelete(TableSnapshot snapshot, String predicate,
                                                    Map<String, String> properties) {
        return stage("stageDelete", snapshot, properties, (dataset, allocator) -> {
            FilterBounds.check(predicate);
            RowDeletions deletions = new RowDeletions();
            deletions.collect(dataset, predicate);
            if (deletions.isEmpty()) {
                return Optional.empty();
            }
            RowDeletions.Staged staged = deletions.stage(dataset);
            return Optional.of(Delete.builder()
                    .updatedFragments(staged.updatedFragments())
                    .deletedFragmentIds(staged.removedFragmentIds())
                    .predicate(predicate)
                    .build());
        });
    }

    @Override
    public Mono<StagedHandle> stageOverwrite(TableSnapshot snapshot, List<Map<String, Object>> rows,
                                             Map<String, String> properties) {
        return stage("stageOverwrite", snapshot, properties, (dataset, allocator) -> {
            List<FragmentMetadata> fragments = rows.isEmpty() ? List.of()
                    : writeFragments(snapshot.ref(), dataset, rows, allocator);
            return Optional.of(Overwrite.builder().fragments(fragments).schema(dataset.getSchema()).build());
        }).map(Optional::get);
    }

    @Override
    public Mono<StagedHandle> stageOverwrite(TableSnapshot snapshot, List<Map<String, Object>> rows, Schema schema,
                                             Map<String, String> properties) {
        return stage("stageOverwrite", snapshot, properties, (dataset, allocator) -> {
            List<FragmentMetadata> fragments = rows.isEmpty() ? List.of()
                    : writeFragments(snapshot.ref(), schema, rows, allocator);
            return Optional.of(Overwrite.builder().fragments(fragments).schema(schema).build());
        }).map(Optional::get);
    }

    @Override
    public Mono<CommittedVersion> commitStaged(StagedHandle handle) {
        LanceStagedHandle staged = own(handle);
        return storage.call(() -> {
            StorageScheduler.requireStorageThread("commitStaged");
            if (!staged.claim()) {
                throw new BadRequest("staged transaction " + staged + " was already committed or discarded");
            }
            try (Dataset committed = staged.transaction().commit()) {
                return committedVersion(staged.ref(), committed);
            } catch (Exception e) {
                throw LanceFailures.translate("commit", staged.ref(), staged.identity().readVersion(), e);
            } finally {
                staged.release();
            }
        });
    }

    @Override
    public Mono<Void> discard(StagedHandle handle) {
        LanceStagedHandle staged = own(handle);
        if (staged.spent()) {
            return Mono.empty(); // already committed or discarded: nothing to release, no storage thread needed
        }
        return storage.run(() -> {
            if (staged.claim()) {
                staged.release();
            }
        });
    }

    @Override
    public Mono<Optional<TransactionIdentity>> transactionAt(TableRef ref, long version) {
        return withDataset("transactionAt", ref, OptionalLong.of(version), (dataset, allocator) -> {
            // A branch's first version (a Clone) and an index build are recognised first: reading their
            // transactions aborts the JVM, and neither is ever a commit a sidecar owns.
            OptionalLong fork = ref.branch().isPresent() ? OptionalLong.of(forkVersion(ref, allocator)) : OptionalLong.empty();
            if (fork.isPresent() && version <= fork.getAsLong()) {
                // The fork itself is a Clone; below it the versions are the parent's, outside this branch's tree
                // (where the index-build check reads manifests), and read as before.
                return version == fork.getAsLong() ? Optional.<TransactionIdentity>empty()
                        : dataset.readTransaction().map(tx -> new TransactionIdentity(tx.readVersion(), tx.uuid()));
            }
            return TableHistory.identityAt(ref, v -> openDataset(allocator, ref, OptionalLong.of(v)), version, fork);
        });
    }

    @Override
    public Mono<Long> head(TableRef ref) {
        return withDataset("head", ref, OptionalLong.empty(), (dataset, allocator) -> dataset.version());
    }

    @Override
    public Mono<CommittedVersion> restore(TableRef ref, long toVersion) {
        return stageRestore(ref, toVersion).flatMap(this::commitStaged);
    }

    @Override
    public Mono<StagedHandle> stageRestore(TableRef ref, long toVersion) {
        return head(ref).flatMap(latest -> {
            TableSnapshot at = TableSnapshot.pinned(ref, latest, -1);
            return stage("stageRestore", at, Map.of("omnigraph.writer", "restore"), (dataset, allocator) -> {
                if (toVersion < 1 || toVersion > latest) {
                    throw new NotFound("version", Long.toString(toVersion), ref + " has no version " + toVersion
                            + " (latest is " + latest + ")");
                }
                return Optional.of(Restore.builder().version(toVersion).build());
            });
        }).map(Optional::get);
    }

    @Override
    public Mono<Optional<Long>> compactFragments(TableRef ref) {
        return compact(ref, TableHistory.COMPACTION);
    }

    @Override
    public Mono<Optional<Long>> compactFragments(TableRef ref, long targetRowsPerFragment) {
        return compact(ref, TableHistory.compaction(targetRowsPerFragment));
    }

    private Mono<Optional<Long>> compact(TableRef ref, CompactionOptions options) {
        return withDataset("compact", ref, OptionalLong.empty(), (dataset, allocator) -> {
            CompactionPlan plan = Compaction.planCompaction(dataset, options);
            if (plan.getCompactionTasks().isEmpty()) {
                return Optional.<Long>empty();
            }
            List<RewriteResult> rewritten = new ArrayList<>();
            for (CompactionTask task : plan.getCompactionTasks()) {
                rewritten.add(task.execute(dataset));
            }
            Compaction.commitCompaction(dataset, rewritten, options); // moves this dataset object to the new version
            return Optional.of(dataset.version());
        });
    }

    @Override
    public Mono<List<String>> indexNames(TableRef ref, long version) {
        return withDataset("indexNames", ref, OptionalLong.of(version), (dataset, allocator) -> LanceIndexes.names(dataset));
    }

    @Override
    public Mono<Long> createIndex(TableRef ref, long expectedVersion, IndexSpec spec) {
        return withDataset("createIndex", ref, OptionalLong.empty(),
                (dataset, allocator) -> LanceIndexes.create(ref, dataset, expectedVersion, spec, false));
    }

    @Override
    public Mono<Long> rebuildIndex(TableRef ref, long expectedVersion, IndexSpec spec) {
        return withDataset("rebuildIndex", ref, OptionalLong.empty(),
                (dataset, allocator) -> LanceIndexes.create(ref, dataset, expectedVersion, spec, true));
    }

    @Override
    public Mono<List<String>> partialIndexes(TableRef ref, long version) {
        // The coverage first: where it cannot be read (not a local root) or there is no index, nothing is opened.
        return storage.call(() -> LanceIndexCoverage.read(ref, version).orElse(Map.of()))
                .flatMap(coverage -> coverage.isEmpty() ? Mono.just(List.<String>of())
                        : withDataset("partialIndexes", ref, OptionalLong.of(version), (dataset, allocator) -> {
                            java.util.Set<Integer> fragments = new java.util.HashSet<>();
                            dataset.getFragments().forEach(fragment -> fragments.add(fragment.getId()));
                            return coverage.entrySet().stream().filter(index -> !index.getValue().containsAll(fragments))
                                    .map(Map.Entry::getKey).sorted().toList();
                        }));
    }

    @Override
    public Mono<Boolean> sameFragments(TableRef ref, long base, long upTo) {
        return withDataset("sameFragments", ref, OptionalLong.of(upTo), (dataset, allocator) -> {
            List<com.lancedb.lance.FragmentMetadata> expected = fragmentsAt(dataset, base);
            for (long version = base + 1; version <= upTo; version++) {
                if (!fragmentsAt(dataset, version).equals(expected)) return false;
            }
            return true;
        });
    }

    @Override
    public Mono<Map<Integer, Long>> liveRowsByFragment(TableSnapshot snapshot) {
        return withDataset("liveRowsByFragment", snapshot.ref(), OptionalLong.of(snapshot.version()), (dataset, allocator) -> {
            Map<Integer, Long> rows = new java.util.LinkedHashMap<>();
            dataset.getFragments().forEach(fragment -> rows.put(fragment.getId(), fragment.metadata().getNumRows()));
            return rows;
        });
    }

    private static List<com.lancedb.lance.FragmentMetadata> fragmentsAt(Dataset latest, long version) {
        try (Dataset at = latest.checkoutVersion(version)) {
            return at.getFragments().stream().map(com.lancedb.lance.Fragment::metadata).toList();
        }
    }

    @Override
    public Mono<List<Map<String, Object>>> nearest(TableSnapshot snapshot, NearestRequest request) {
        return withDataset("nearest", snapshot.ref(), OptionalLong.of(snapshot.version()),
                (dataset, allocator) -> LanceIndexes.nearest(snapshot.ref(), dataset, request));
    }

    @Override
    public Mono<Integer> compactionTasks(TableRef ref) {
        return withDataset("compactionTasks", ref, OptionalLong.empty(), (dataset, allocator) ->
                Compaction.planCompaction(dataset, TableHistory.COMPACTION).getCompactionTasks().size());
    }

    @Override
    public Mono<List<String>> operationsBetween(TableRef ref, long after, long upTo) {
        return withDataset("operationsBetween", ref, OptionalLong.of(upTo), (dataset, allocator) -> {
            OptionalLong fork = ref.branch().isPresent() ? OptionalLong.of(forkVersion(ref, allocator)) : OptionalLong.empty();
            return TableHistory.operations(ref, dataset, after, upTo, fork);
        });
    }

    @Override
    public Mono<List<Optional<TransactionMark>>> transactionMarks(TableRef ref, long after, long upTo, String key) {
        return withDataset("transactionMarks", ref, OptionalLong.of(upTo), (dataset, allocator) -> {
            OptionalLong fork = ref.branch().isPresent() ? OptionalLong.of(forkVersion(ref, allocator)) : OptionalLong.empty();
            // Each version opened through the ref itself: a branch's versions live in its own tree.
            return TableHistory.marks(ref, version -> openDataset(allocator, ref, OptionalLong.of(version)), after, upTo,
                    fork, key);
        });
    }

    @Override
    public Mono<FragmentDiff> fragmentDiff(TableSnapshot before, TableSnapshot after) {
        return withDataset("fragmentDiff", before.ref(), OptionalLong.of(before.version()), (old, allocator) -> {
            List<com.lancedb.lance.FragmentMetadata> was = old.getFragments().stream().map(com.lancedb.lance.Fragment::metadata).toList();
            List<com.lancedb.lance.FragmentMetadata> now;
            try (Dataset current = openDataset(allocator, after.ref(), OptionalLong.of(after.version()))) {
                now = current.getFragments().stream().map(com.lancedb.lance.Fragment::metadata).toList();
            }
            // By id, then Lance's own equality (it defines equals but not hashCode: no hashed sets of metadata).
            Map<Integer, com.lancedb.lance.FragmentMetadata> byId = new java.util.HashMap<>();
            if (before.ref().path().equals(after.ref().path())) {
                was.forEach(fragment -> byId.put(fragment.getId(), fragment));
            }
            java.util.Set<Integer> shared = new java.util.HashSet<>();
            now.forEach(fragment -> {
                if (fragment.equals(byId.get(fragment.getId()))) shared.add(fragment.getId());
            });
            return new FragmentDiff(was.stream().map(com.lancedb.lance.FragmentMetadata::getId).filter(id -> !shared.contains(id)).toList(),
                    now.stream().map(com.lancedb.lance.FragmentMetadata::getId).filter(id -> !shared.contains(id)).toList());
        });
    }

    @Override
    public Mono<LanceBranch> createBranch(TableRef from, long fromVersion, String name) {
        LanceBranchNames.requireValid(name);
        return withDataset("createBranch", from, OptionalLong.empty(), (dataset, allocator) -> {
            List<String> live = branchesOf(from.path(), allocator).stream().map(LanceBranch::name).toList();
            if (live.contains(name)) {
                throw new dev.omnigraph.storage.error.Conflict("branch " + name + " already exists on " + from.path());
            }
            LanceBranchNames.requireDisjoint(name, live);
            BranchTrees.reclaimOrphanTree(from.path(), name);
            // Branching from a branch only works through a dataset opened on that branch (lance-java.md §7).
            try (Dataset fork = from.branch().isPresent()
                    ? dataset.branches().create(name, fromVersion, from.branch().get())
                    : dataset.branches().create(name, fromVersion)) {
                // The returned dataset has no allocator; it is only closed.
            }
            return branchesOf(from.path(), allocator).stream()
                    .filter(branch -> branch.name().equals(name)).findFirst()
                    .orElseThrow(() -> new NotFound("branch", name, "branch " + name + " vanished right after creation"));
        });
    }

    @Override
    public Mono<Void> deleteBranch(String path, String name) {
        LanceBranchNames.requireValid(name);
        return withDataset("deleteBranch", TableRef.main(path), OptionalLong.empty(), (dataset, allocator) -> {
            if (dataset.branches().list().stream().noneMatch(branch -> branch.getName().equals(name))) {
                throw new NotFound("branch", name, "branch " + name + " does not exist on this dataset");
            }
            dataset.branches().delete(name);
            return Boolean.TRUE;
        }).then();
    }

    @Override
    public Mono<List<LanceBranch>> listBranches(String path) {
        return storage.call(() -> {
            StorageScheduler.requireStorageThread("listBranches");
            try (BufferAllocator allocator = childAllocator("listBranches")) {
                return branchesOf(path, allocator);
            } catch (Exception e) {
                throw LanceFailures.translate("listBranches", TableRef.main(path), e);
            }
        });
    }

    @Override
    public Mono<VersionGcPlan> planVersionGc(String path, Map<Optional<String>, VersionRetention> retention,
                                             java.time.Instant orphanCutoff) {
        return storage.call(() -> {
            StorageScheduler.requireStorageThread("planVersionGc");
            try (BufferAllocator allocator = childAllocator("planVersionGc")) {
                return LanceVersionGc.plan(allocator, path, Map.copyOf(retention), orphanCutoff);
            } catch (Exception e) {
                throw LanceFailures.translate("planVersionGc", TableRef.main(path), e);
            }
        });
    }

    @Override
    public Mono<Long> applyVersionGc(VersionGcPlan plan, VersionGcPlan.Phase phase) {
        return storage.call(() -> {
            StorageScheduler.requireStorageThread("applyVersionGc");
            try {
                return LanceVersionGc.apply(plan, phase);
            } catch (Exception e) {
                throw LanceFailures.translate("applyVersionGc", TableRef.main(plan.path()), e);
            }
        });
    }

    /**
     * Closes the root allocator, which fails loudly if any Arrow buffer leaked. Waits (briefly) for scans whose
     * subscriber cancelled from another thread to finish closing on their storage thread.
     */
    @Override
    public void close() {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (openScans.get() > 0 && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
        }
        rootAllocator.close();
    }

    /** Lance resources are released on a storage thread: inline when already on one, else scheduled there. */
    private void closeScan(OpenScan scan) {
        Runnable release = () -> {
            try {
                scan.close();
            } finally {
                openScans.decrementAndGet();
            }
        };
        if (StorageScheduler.onStorageThread()) {
            release.run();
        } else {
            storage.schedule(release);
        }
    }

    // ---- internals -------------------------------------------------------------------------------------

    BufferAllocator childAllocator(String purpose) {
        return rootAllocator.newChildAllocator(purpose, 0, Long.MAX_VALUE);
    }

    static Dataset openDataset(BufferAllocator allocator, TableRef ref, OptionalLong version) {
        ReadOptions.Builder options = new ReadOptions.Builder().setStorageOptions(LanceStorageOptions.forUri(ref.uri()));
        if (version.isPresent()) {
            options.setVersion(Math.toIntExact(version.getAsLong()));
        }
        return Dataset.open(allocator, ref.uri(), options.build());
    }

    private <T> Mono<T> withDataset(String operation, TableRef ref, OptionalLong version, DatasetWork<T> work) {
        return storage.call(() -> {
            StorageScheduler.requireStorageThread(operation);
            try (BufferAllocator allocator = childAllocator(operation);
                 Dataset dataset = openDataset(allocator, ref, version)) {
                return work.apply(dataset, allocator);
            } catch (Exception e) {
                throw LanceFailures.translate(operation, ref, e);
            }
        });
    }

    /** Opens the snapshot, builds the operation, and hands dataset + allocator to the handle (or frees them). */
    private Mono<Optional<StagedHandle>> stage(String operation, TableSnapshot snapshot, Map<String, String> properties,
                                               OperationBuilder build) {
        return stageCounted(operation, snapshot, properties, (dataset, allocator) -> build.apply(dataset, allocator)
                .map(staged -> new CountedOperation(staged, OptionalLong.empty())));
    }

    /** As {@link #stage}, for operations that know how many rows their commit adds net (see {@link StagedHandle#rowDelta}). */
    private Mono<Optional<StagedHandle>> stageCounted(String operation, TableSnapshot snapshot,
                                                      Map<String, String> properties, CountedBuilder build) {
        TableRef ref = snapshot.ref();
        return storage.call(() -> {
            StorageScheduler.requireStorageThread(operation);
            BufferAllocator allocator = childAllocator(operation);
            Dataset dataset = null;
            try {
                dataset = openDataset(allocator, ref, OptionalLong.of(snapshot.version()));
                Optional<CountedOperation> staged = build.apply(dataset, allocator);
                if (staged.isEmpty()) {
                    dataset.close();
                    allocator.close();
                    return Optional.<StagedHandle>empty();
                }
                Transaction transaction = dataset.newTransactionBuilder()
                        .readVersion(snapshot.version())
                        .transactionProperties(Map.copyOf(properties))
                        .operation(staged.get().operation())
                        .build();
                return Optional.<StagedHandle>of(new LanceStagedHandle(ref, allocator, dataset, transaction,
                        staged.get().rowDelta()));
            } catch (Exception e) {
                if (dataset != null) dataset.close();
                allocator.close();
                throw LanceFailures.translate(operation, ref, snapshot.version(), e);
            }
        });
    }

    private static List<FragmentMetadata> writeFragments(TableRef ref, Dataset dataset, List<Map<String, Object>> rows,
                                                         BufferAllocator allocator) {
        return writeFragments(ref, dataset.getSchema(), rows, allocator);
    }

    private static List<FragmentMetadata> writeFragments(TableRef ref, Schema schema, List<Map<String, Object>> rows,
                                                         BufferAllocator allocator) {
        try (VectorSchemaRoot root = ArrowRows.build(ref.toString(), schema, rows, allocator)) {
            return Fragment.create(ref.uri(), allocator, root, new WriteParams.Builder()
                    .withDataStorageVersion(FILE_VERSION).withStorageOptions(LanceStorageOptions.forUri(ref.uri())).build());
        }
    }

    private static List<String> distinctKeys(TableRef ref, List<Map<String, Object>> rows, String keyColumn) {
        SqlLiterals.requireIdentifier(keyColumn);
        Set<String> seen = new HashSet<>();
        List<String> keys = new ArrayList<>(rows.size());
        for (Map<String, Object> row : rows) {
            if (!(row.get(keyColumn) instanceof String key)) {
                throw new BadRequest("upsert into " + ref + ": every row needs a string '" + keyColumn + "'");
            }
            if (!seen.add(key)) {
                throw new BadRequest("upsert into " + ref + ": key '" + key + "' appears twice; dedupe before staging");
            }
            keys.add(key);
        }
        return keys;
    }

    private static TableSnapshot snapshotOf(TableRef ref, Dataset dataset) {
        return new TableSnapshot(ref, dataset.version(), dataset.getSchema(), dataset.countRows(),
                dataset.getFragments().size(), dataset.getVersion().getDataTime().toInstant());
    }

    private static CommittedVersion committedVersion(TableRef ref, Dataset committed) {
        TransactionIdentity achieved = committed.readTransaction()
                .map(tx -> new TransactionIdentity(tx.readVersion(), tx.uuid()))
                .orElseThrow(() -> new IllegalStateException("Lance recorded no transaction for version " + committed.version()));
        TableSnapshot landed = snapshotOf(ref, committed);
        Optional<CommittedVersion.NewestFragment> newest = committed.getFragments().stream()
                .max(Comparator.comparingInt(Fragment::getId))
                .map(fragment -> new CommittedVersion.NewestFragment(fragment.getId(), fragment.metadata().getPhysicalRows()));
        return new CommittedVersion(landed.version(), achieved, landed.rowCount(), Optional.of(landed), newest);
    }

    private long forkVersion(TableRef ref, BufferAllocator allocator) {
        String name = ref.branch().orElseThrow();
        return branchesOf(ref.path(), allocator).stream().filter(branch -> branch.name().equals(name))
                .mapToLong(LanceBranch::parentVersion).findFirst()
                .orElseThrow(() -> new NotFound("branch", name, "branch " + name + " does not exist on this dataset"));
    }

    static List<LanceBranch> branchesOf(String path, BufferAllocator allocator) {
        try (Dataset main = openDataset(allocator, TableRef.main(path), OptionalLong.empty())) {
            List<LanceBranch> out = new ArrayList<>();
            for (Branch branch : main.branches().list()) {
                out.add(new LanceBranch(branch.getName(), branch.getParentBranch(), branch.getParentVersion(),
                        branch.getCreateAt()));
            }
            out.sort(Comparator.comparing(LanceBranch::name));
            return List.copyOf(out);
        }
    }

    private static LanceStagedHandle own(StagedHandle handle) {
        if (handle instanceof LanceStagedHandle staged) {
            return staged;
        }
        throw new IllegalArgumentException("not a handle staged by this storage: " + handle);
    }

    @FunctionalInterface
    private interface DatasetWork<T> {
        T apply(Dataset dataset, BufferAllocator allocator);
    }

    @FunctionalInterface
    private interface OperationBuilder {
        Optional<Operation> apply(Dataset dataset, BufferAllocator allocator);
    }

    /** An operation and the net rows its commit adds, when known. */
    private record CountedOperation(Operation operation, OptionalLong rowDelta) {
    }

    @FunctionalInterface
    private interface CountedBuilder {
        Optional<CountedOperation> apply(Dataset dataset, BufferAllocator allocator);
    }

    /** The Lance resources of one streaming scan, closed together on completion, error or cancel. */
    private record OpenScan(BufferAllocator allocator, Dataset dataset, LanceScanner scanner,
                            org.apache.arrow.vector.ipc.ArrowReader reader, List<String> columns) {

        static OpenScan start(LanceTableStorage owner, TableSnapshot snapshot, ScanRequest request) {
            StorageScheduler.requireStorageThread("scan");
            BufferAllocator allocator = owner.childAllocator("scan");
            Dataset dataset = null;
            LanceScanner scanner = null;
            try {
                dataset = openDataset(allocator, snapshot.ref(), OptionalLong.of(snapshot.version()));
                ScanOptions.Builder options = new ScanOptions.Builder().batchSize(request.batchSize());
                request.filter().map(FilterBounds::check).ifPresent(options::filter);
                // Lance reads column names as modified UTF-8: only checked identifiers cross.
                request.columns().forEach(SqlLiterals::requireIdentifier);
                if (!request.columns().isEmpty()) options.columns(request.columns());
                request.limit().ifPresent(options::limit);
                if (request.rowAddress()) options.withRowAddress(true);
                request.orderBy().ifPresent(column -> options.setColumnOrderings(List.of(ascending(column))));
                request.fragments().ifPresent(options::fragmentIds);
                scanner = dataset.newScan(options.build());
                List<String> columns = new ArrayList<>();
                scanner.schema().getFields().forEach(field -> columns.add(field.getName()));
                return new OpenScan(allocator, dataset, scanner, scanner.scanBatches(), List.copyOf(columns));
            } catch (Exception e) {
                closeAll(scanner, dataset, allocator);
                throw LanceFailures.translate("scan", snapshot.ref(), e);
            }
        }

        private static com.lancedb.lance.ipc.ColumnOrdering ascending(String column) {
            SqlLiterals.requireIdentifier(column);
            com.lancedb.lance.ipc.ColumnOrdering.Builder ordering = new com.lancedb.lance.ipc.ColumnOrdering.Builder();
            ordering.setColumnName(column);
            ordering.setAscending(true);
            ordering.setNullFirst(false);
            return ordering.build();
        }

        void close() {
            try {
                reader.close();
            } catch (Exception ignored) {
                // Closing is best effort; the allocator check below still reports leaked buffers.
            }
            closeAll(scanner, dataset, allocator);
        }

        private static void closeAll(LanceScanner scanner, Dataset dataset, BufferAllocator allocator) {
            try {
                if (scanner != null) scanner.close();
            } catch (Exception ignored) {
                // see close()
            }
            if (dataset != null) dataset.close();
            allocator.close();
        }
    }
}
