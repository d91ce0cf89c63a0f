package dev.omnigraph.storage;

import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.WriteParams;
import org.lance.operation.Append;
import org.lance.operation.Delete;
import org.lance.operation.Operation;
import org.lance.operation.Overwrite;
import org.lance.operation.Restore;
import org.lance.operation.Update;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.NotFound;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Mono;

/**
 * The writing part of {@link LanceTableStorage}: transactions staged on a pinned version (their files written,
 * referenced by no version until committed), then committed exactly or discarded.
 */
final class LanceStaging {
    /** Ids per {@code IN (...)} list when locating rows to replace. */
    private static final int KEY_CHUNK = 1024;

    private final LanceDatasets datasets;
    private final LanceVersionReads versions;
    /**
     * The schema an upsert last found per table ref: the next upsert of a pinned (schema-less) snapshot writes its
     * fragment with it beside the key scan, and the commit uses that fragment only if the opened version's schema
     * equals it (otherwise it writes the fragment again), so a stale entry costs time, never correctness.
     */
    private final Map<TableRef, Schema> upsertSchemas = new ConcurrentHashMap<>();
    /** The file format each table ref was last opened with, for the same early write (a miss costs a rewrite). */
    private final Map<TableRef, String> formats = new ConcurrentHashMap<>();

    LanceStaging(LanceDatasets datasets, LanceVersionReads versions) {
        this.datasets = datasets;
        this.versions = versions;
    }

    Mono<StagedHandle> stageAppend(TableSnapshot snapshot, List<Map<String, Object>> rows,
                                   Map<String, String> properties) {
        if (rows.isEmpty()) {
            return Mono.error(new BadRequest("nothing to append to " + snapshot.ref() + ": no rows"));
        }
        return stageCounted("stageAppend", snapshot, properties, (dataset, allocator) -> Optional.of(new CountedOperation(
                Append.builder().fragments(writeFragments(snapshot.ref(), dataset, rows, allocator)).build(),
                OptionalLong.of(rows.size()))))
                .map(Optional::get);
    }

    Mono<StagedHandle> stageUpsert(TableSnapshot snapshot, List<Map<String, Object>> rows, String keyColumn,
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
    Mono<StagedHandle> stageUpsertAt(TableSnapshot snapshot, Map<String, Long> knownAddresses,
                                     List<Map<String, Object>> rows, String keyColumn,
                                     Map<String, String> properties) {
        return stageUpsertInPartsAt(snapshot, knownAddresses, List.of(rows), keyColumn, properties);
    }

    /** As {@link #stageUpsertAt}, the new rows written as one fragment per non-empty part (one, without a schema). */
    Mono<StagedHandle> stageUpsertInPartsAt(TableSnapshot snapshot, Map<String, Long> knownAddresses,
                                            List<List<Map<String, Object>>> parts, String keyColumn,
                                            Map<String, String> properties) {
        List<Map<String, Object>> rows = parts.stream().flatMap(List::stream).toList();
        List<List<Map<String, Object>>> written = parts.stream().filter(part -> !part.isEmpty()).toList();
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
        String earlyFormat = formats.getOrDefault(ref, datasets.newTableFormat());
        Mono<List<FragmentMetadata>> fragments = datasets.storage().call(() -> {
            StorageScheduler.requireStorageThread("stageUpsertAt");
            try (BufferAllocator allocator = datasets.childAllocator("stageUpsertAt.fragments")) {
                return writeParts(ref, snapshot.schema(), earlyFormat, written, allocator);
            } catch (Exception e) {
                throw LanceFailures.translate("stageUpsertAt", ref, snapshot.version(), e);
            }
        });
        Mono<PendingUpdate> deletions = datasets.storage().call(() -> {
            StorageScheduler.requireStorageThread("stageUpsertAt");
            BufferAllocator allocator = datasets.childAllocator("stageUpsertAt");
            Dataset dataset = null;
            try {
                dataset = LanceDatasets.open(allocator, ref, OptionalLong.of(snapshot.version()));
                RowDeletions found = RowDeletions.at(dataset, snapshot, keys.stream().filter(known::containsKey)
                        .map(known::get).toList());
                if (found == null) {
                    found = deletionsByKey(dataset, keys, keyColumn, InheritedIndexes.usable(ref, allocator));
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
            return datasets.storage().call(() -> {
                try {
                    // A snapshot schema that is not the dataset's (a remembered one gone stale) must not reach a
                    // commit: the rows are written again with the dataset's own, which also reports a failure of the
                    // early write that was not the schema's fault.
                    Schema actual = pending.dataset().getSchema();
                    String format = LanceDatasets.formatOf(pending.dataset());
                    upsertSchemas.put(ref, actual);
                    formats.put(ref, format);
                    List<FragmentMetadata> added = both.getT2().hasValue() && actual.equals(snapshot.schema())
                            && format.equals(earlyFormat)
                            ? both.getT2().get()
                            : writeParts(ref, actual, format, written, pending.allocator());
                    Transaction transaction = new Transaction.Builder()
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

    private static RowDeletions deletionsByKey(Dataset dataset, List<String> keys, String keyColumn, boolean useIndexes) {
        RowDeletions deletions = new RowDeletions();
        for (int from = 0; from < keys.size(); from += KEY_CHUNK) {
            List<String> chunk = keys.subList(from, Math.min(keys.size(), from + KEY_CHUNK));
            deletions.collect(dataset, SqlLiterals.inList(keyColumn, chunk), useIndexes);
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

    Mono<Optional<StagedHandle>> stageRowDelta(TableSnapshot snapshot, List<Map<String, Object>> rows,
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
                deletions = deletionsByKey(dataset, keys, keyColumn, InheritedIndexes.usable(snapshot.ref(), allocator));
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

    Mono<Optional<StagedHandle>> stageDelete(TableSnapshot snapshot, String predicate,
                                             Map<String, String> properties) {
        return stage("stageDelete", snapshot, properties, (dataset, allocator) -> {
            FilterBounds.check(predicate);
            RowDeletions deletions = new RowDeletions();
            deletions.collect(dataset, predicate, InheritedIndexes.usable(snapshot.ref(), allocator));
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

    Mono<StagedHandle> stageOverwrite(TableSnapshot snapshot, List<Map<String, Object>> rows,
                                      Map<String, String> properties) {
        return stage("stageOverwrite", snapshot, properties, (dataset, allocator) -> {
            List<FragmentMetadata> fragments = rows.isEmpty() ? List.of()
                    : writeFragments(snapshot.ref(), dataset, rows, allocator);
            return Optional.of(Overwrite.builder().fragments(fragments).schema(dataset.getSchema()).build());
        }).map(Optional::get);
    }

    Mono<StagedHandle> stageOverwrite(TableSnapshot snapshot, List<Map<String, Object>> rows, Schema schema,
                                      Map<String, String> properties) {
        return stage("stageOverwrite", snapshot, properties, (dataset, allocator) -> {
            String format = LanceDatasets.formatOf(dataset);
            Schema stored = BlobEncoding.forFormat(schema, format); // a 2.0 table keeps plain blob columns
            List<FragmentMetadata> fragments = rows.isEmpty() ? List.of()
                    : writeFragments(snapshot.ref(), stored, format, rows, allocator);
            return Optional.of(Overwrite.builder().fragments(fragments).schema(stored).build());
        }).map(Optional::get);
    }

    Mono<CommittedVersion> commitStaged(StagedHandle handle) {
        LanceStagedHandle staged = own(handle);
        return datasets.storage().call(() -> {
            StorageScheduler.requireStorageThread("commitStaged");
            if (!staged.claim()) {
                throw new BadRequest("staged transaction " + staged + " was already committed or discarded");
            }
            try (Dataset committed = new CommitBuilder(staged.dataset()).execute(staged.transaction())) {
                return committedVersion(staged, committed);
            } catch (Exception e) {
                throw LanceFailures.translate("commit", staged.ref(), staged.identity().readVersion(), e);
            } finally {
                staged.release();
            }
        });
    }

    Mono<Void> discard(StagedHandle handle) {
        LanceStagedHandle staged = own(handle);
        if (staged.spent()) {
            return Mono.empty(); // already committed or discarded: nothing to release, no storage thread needed
        }
        return datasets.storage().run(() -> {
            if (staged.claim()) {
                staged.release();
            }
        });
    }

    Mono<StagedHandle> stageRestore(TableRef ref, long toVersion) {
        return versions.head(ref).flatMap(latest -> {
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

    /** Opens the snapshot, builds the operation, and hands dataset + allocator to the handle (or frees them). */
    private Mono<Optional<StagedHandle>> stage(String operation, TableSnapshot snapshot, Map<String, String> properties,
                                               OperationBuilder build) {
        return stageCounted(operation, snapshot, properties, (dataset, allocator) -> build.apply(dataset, allocator)
                .map(staged -> new CountedOperation(staged, OptionalLong.empty())));
    }

    /** As {@link #stage}, for operations that know how many rows their commit adds net (see {@link StagedHandle#rowDelta}). */
    Mono<Optional<StagedHandle>> stageCounted(String operation, TableSnapshot snapshot,
                                                      Map<String, String> properties, CountedBuilder build) {
        TableRef ref = snapshot.ref();
        return datasets.storage().call(() -> {
            StorageScheduler.requireStorageThread(operation);
            BufferAllocator allocator = datasets.childAllocator(operation);
            Dataset dataset = null;
            try {
                dataset = LanceDatasets.open(allocator, ref, OptionalLong.of(snapshot.version()));
                Optional<CountedOperation> staged = build.apply(dataset, allocator);
                if (staged.isEmpty()) {
                    dataset.close();
                    allocator.close();
                    return Optional.<StagedHandle>empty();
                }
                Transaction transaction = new Transaction.Builder()
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

    private static List<FragmentMetadata> writeParts(TableRef ref, Schema schema, String format,
                                                     List<List<Map<String, Object>>> parts, BufferAllocator allocator) {
        List<FragmentMetadata> added = new ArrayList<>();
        for (List<Map<String, Object>> part : parts) {
            added.addAll(writeFragments(ref, schema, format, part, allocator));
        }
        return added;
    }

    private static List<FragmentMetadata> writeFragments(TableRef ref, Dataset dataset, List<Map<String, Object>> rows,
                                                         BufferAllocator allocator) {
        return writeFragments(ref, dataset.getSchema(), LanceDatasets.formatOf(dataset), rows, allocator);
    }

    /** Writes {@code rows} as new fragment files in the table's own file {@code format} (Lance refuses a mix). */
    private static List<FragmentMetadata> writeFragments(TableRef ref, Schema schema, String format,
                                                         List<Map<String, Object>> rows, BufferAllocator allocator) {
        // Rows whose columns were encoded beforehand (a load's, off the storage threads) are only copied here.
        PreparedColumns prepared = PreparedColumns.of(rows, schema);
        try (VectorSchemaRoot root = prepared != null ? prepared.toRoot(schema, allocator)
                : ArrowRows.build(ref.toString(), schema, rows, allocator)) {
            return Fragment.create(ref.uri(), allocator, root, new WriteParams.Builder()
                    .withDataStorageVersion(format).withStorageOptions(LanceStorageOptions.forUri(ref.uri())).build());
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

    /**
     * What the commit of {@code staged} achieved, read from the dataset the commit returned. The transaction is read
     * back only when the commit did not land at its read version + 1: Lance writes version read + 1 only when nothing
     * came between (the version's manifest is created exclusively), so that version is this transaction, unrebased,
     * and its identity is the staged one; a commit that landed later was rebased over other commits, and callers
     * must see what Lance recorded for it. (This reads back only a version this commit produced, never an index
     * build's or a fork's, whose {@code readTransaction()} aborts the JVM.) The fragments are listed once, for the
     * snapshot's count and the newest fragment.
     */
    private static CommittedVersion committedVersion(LanceStagedHandle staged, Dataset committed) {
        long version = committed.version();
        TransactionIdentity planned = staged.identity();
        TransactionIdentity achieved = version == planned.readVersion() + 1 ? planned
                : committed.readTransaction().map(TransactionIdentity::of)
                        .orElseThrow(() -> new IllegalStateException("Lance recorded no transaction for version " + version));
        List<Fragment> fragments = committed.getFragments();
        TableSnapshot landed = LanceDatasets.snapshotOf(staged.ref(), committed, fragments.size());
        Optional<CommittedVersion.NewestFragment> newest = fragments.stream()
                .max(Comparator.comparingInt(Fragment::getId))
                .map(fragment -> new CommittedVersion.NewestFragment(fragment.getId(), fragment.metadata().getPhysicalRows()));
        return new CommittedVersion(version, achieved, landed.rowCount(), Optional.of(landed), newest);
    }

    private static LanceStagedHandle own(StagedHandle handle) {
        if (handle instanceof LanceStagedHandle staged) {
            return staged;
        }
        throw new IllegalArgumentException("not a handle staged by this storage: " + handle);
    }

    @FunctionalInterface
    private interface OperationBuilder {
        Optional<Operation> apply(Dataset dataset, BufferAllocator allocator);
    }

    /** An operation and the net rows its commit adds, when known. */
    record CountedOperation(Operation operation, OptionalLong rowDelta) {
    }

    @FunctionalInterface
    interface CountedBuilder {
        Optional<CountedOperation> apply(Dataset dataset, BufferAllocator allocator);
    }
}
