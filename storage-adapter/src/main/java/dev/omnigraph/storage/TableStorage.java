package dev.omnigraph.storage;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The storage seam: the only way the engine touches Lance datasets. It offers reads and <em>staged</em>
 * writes only. A {@code stage*} call writes reclaimable files and returns a {@link StagedHandle} whose
 * {@code (readVersion, uuid)} is known before anything is visible; {@link #commitStaged} attempts the commit
 * exactly once (no transparent retries, never twice) and reports what it achieved. No method commits
 * implicitly except {@link #create}, {@link #restore} and the branch-ref calls, which Lance cannot stage.
 *
 * <p>Every call runs its Lance work on the {@link StorageScheduler}. Rows are on-heap maps (see
 * {@link ArrowRows} for the value types); write batches are always built from the snapshot's own schema.
 */
public sealed interface TableStorage extends AutoCloseable permits LanceTableStorage, CountingTableStorage {

    /** Creates an empty dataset (stable row ids on, auto-cleanup off) and returns its first snapshot. */
    Mono<TableSnapshot> create(String path, Schema schema);

    /** Opens {@code ref} at {@code version}, or at its latest version when empty. */
    Mono<TableSnapshot> open(TableRef ref, OptionalLong version);

    /** The live counts of the dataset handles this storage keeps for reuse (for metrics; no storage call). */
    KeptHandleStats keptHandles();

    /** Streams the rows of a snapshot that match the request, honouring demand; closes Lance resources on cancel. */
    Flux<RowBatch> scan(TableSnapshot snapshot, ScanRequest request);

    /**
     * The distinct values of the string {@code column} at the snapshot that {@code wanted} accepts: one scan of
     * that column, matched as it streams, so only the values kept stay on the heap (key checks of large batches).
     */
    default Mono<java.util.Set<String>> keysAmong(TableSnapshot snapshot, String column,
                                                  java.util.function.Predicate<String> wanted) {
        return scan(snapshot, ScanRequest.all().withColumns(List.of(column)))
                .flatMapIterable(RowBatch::rows)
                .map(row -> (String) row.get(column))
                .filter(wanted)
                .collect(java.util.HashSet::new, java.util.Set::add);
    }

    /**
     * One blob of {@code column} in the row whose string {@code keyColumn} is {@code key} at {@code snapshot}: its size
     * and the bytes {@code window} picks once the size is known. A blob-encoded column ({@link BlobEncoding}) reads
     * only those bytes; a plain {@code LargeBinary} column (tables of earlier builds) reads the whole value.
     */
    Mono<BlobRead> readBlob(TableSnapshot snapshot, String keyColumn, String key, String column, BlobWindow window);

    /** Counts the rows of a snapshot matching {@code filter} (all rows when empty). */
    Mono<Long> count(TableSnapshot snapshot, Optional<String> filter);

    /** Stages new rows as one Append. {@code rows} must not be empty. */
    Mono<StagedHandle> stageAppend(TableSnapshot snapshot, List<Map<String, Object>> rows, Map<String, String> properties);

    /**
     * Stages an upsert by {@code keyColumn} as ONE Update transaction: deletion vectors for the existing rows
     * whose key appears in {@code rows}, plus fragments holding every row of {@code rows}. The caller dedupes
     * {@code rows} by key.
     */
    Mono<StagedHandle> stageUpsert(TableSnapshot snapshot, List<Map<String, Object>> rows, String keyColumn,
                                   Map<String, String> properties);

    /**
     * Stages a row delta by {@code keyColumn} as ONE Update transaction: deletion vectors for the existing rows whose
     * key appears in {@code rows} or in {@code deleteKeys}, plus fragments holding every row of {@code rows} (none
     * when it is empty). Keys must be distinct across both lists. Empty when nothing matches and nothing is added.
     */
    Mono<Optional<StagedHandle>> stageRowDelta(TableSnapshot snapshot, List<Map<String, Object>> rows,
                                               List<String> deleteKeys, String keyColumn, Map<String, String> properties);

    /**
     * The same Update as {@link #stageUpsert}, for a caller that knows where the rows it replaces live at exactly
     * {@code snapshot} (the manifest publisher): {@code knownAddresses} maps the key of every existing row among
     * {@code rows} to its row address (fragment id &lt;&lt; 32 | offset); a key it does not hold is new. Nothing is
     * scanned when the dataset is exactly {@code snapshot} (version, recorded time and fragment count) and every
     * address lies inside one of its fragments; otherwise the rows are found by key, as {@link #stageUpsert} does.
     */
    Mono<StagedHandle> stageUpsertAt(TableSnapshot snapshot, Map<String, Long> knownAddresses,
                                     List<Map<String, Object>> rows, String keyColumn, Map<String, String> properties);

    /**
     * The same Update as {@link #stageUpsertAt}, its new rows written as one fragment per non-empty part, in order
     * (the {@code __manifest} fold keeps its lineage rows apart from the few current-state rows, whose mostly-null
     * columns would otherwise cost every lineage row of the fragment; with an unknown schema, one fragment).
     */
    Mono<StagedHandle> stageUpsertInPartsAt(TableSnapshot snapshot, Map<String, Long> knownAddresses,
                                            List<List<Map<String, Object>>> parts, String keyColumn,
                                            Map<String, String> properties);

    /** Stages a delete of the rows matching {@code predicate}; empty when nothing matches (nothing staged). */
    Mono<Optional<StagedHandle>> stageDelete(TableSnapshot snapshot, String predicate, Map<String, String> properties);

    /** Stages a replacement of the whole table image by {@code rows}; an empty list stages a zero-fragment image. */
    Mono<StagedHandle> stageOverwrite(TableSnapshot snapshot, List<Map<String, Object>> rows, Map<String, String> properties);

    /**
     * As {@link #stageOverwrite(TableSnapshot, List, Map)}, but the new image has {@code schema} (a schema apply
     * renaming, adding or dropping columns): rows are built from {@code schema}, never from the dataset's.
     */
    Mono<StagedHandle> stageOverwrite(TableSnapshot snapshot, List<Map<String, Object>> rows,
                                      org.apache.arrow.vector.types.pojo.Schema schema, Map<String, String> properties);

    /**
     * Commits a staged transaction exactly once. Emits the achieved version and transaction identity; a
     * concurrent conflicting change fails with {@code CommitConflict} and lands nothing. The handle is spent
     * either way.
     */
    Mono<CommittedVersion> commitStaged(StagedHandle handle);

    /** Releases a handle that will not be committed; its staged files stay behind as reclaimable garbage. */
    Mono<Void> discard(StagedHandle handle);

    /**
     * The identity of the transaction that produced {@code version} (data writes, restores, index builds). Empty for a
     * branch's first version: Lance aborts the JVM when its transaction is read, so it is recognised without reading.
     */
    Mono<Optional<TransactionIdentity>> transactionAt(TableRef ref, long version);

    /** The latest version of {@code ref}. */
    Mono<Long> head(TableRef ref);

    /** Commits a Restore of {@code ref} to {@code toVersion}; the result is a new version (latest + 1). */
    Mono<CommittedVersion> restore(TableRef ref, long toVersion);

    /**
     * Stages a Restore of {@code ref} to {@code toVersion} against its latest version, so its identity can be
     * recorded (e.g. in a recovery plan) before it is committed with {@link #commitStaged}.
     */
    Mono<StagedHandle> stageRestore(TableRef ref, long toVersion);

    /**
     * Rewrites {@code ref}'s small fragments into larger ones (and drops deleted rows), keeping the data and every
     * older version readable; emits the new version, or empty when there was nothing to compact. Tiered: a
     * settled fragment (at least a sixteenth of the table and 512 rows, without deletions to materialise) is left
     * alone, so a compaction costs what was written since the last one, not the table, and the versions before it
     * share the settled fragments. Lance cannot stage this: it commits reserve-fragment versions and then a
     * rewrite. It conflicts with a concurrent delete/update of the same fragments, so callers hold the table's
     * gates; a conflict lands nothing.
     */
    Mono<Optional<Long>> compactFragments(TableRef ref);

    /** The names of the indexes of {@code ref} at {@code version}, sorted. Reads no transaction. */
    Mono<List<String>> indexNames(TableRef ref, long version);

    /**
     * Stages, as ONE CreateIndex transaction on {@code snapshot}, every index segment {@code specs} need there: an
     * index the version lacks is built over every fragment; one that misses fragments gets a delta segment over those,
     * which takes in earlier segments as {@code merge} says (the others stay shared with older versions), or is rebuilt
     * whole when it is a vector index missing a fifth of the rows. Nothing is visible until {@link #commitStaged}, which
     * lands it at the read version + 1 like any staged write (its transaction is readable: recovery identifies it).
     * Empty when no spec needs anything (a table without fragments needs none).
     */
    Mono<Optional<StagedHandle>> stageIndexes(TableSnapshot snapshot, List<IndexSpec> specs, Map<String, String> properties,
                                              SegmentMerge merge);

    /** {@link #stageIndexes(TableSnapshot, List, Map, SegmentMerge)} as maintenance does it ({@link SegmentMerge#DELTA}). */
    default Mono<Optional<StagedHandle>> stageIndexes(TableSnapshot snapshot, List<IndexSpec> specs,
                                                      Map<String, String> properties) {
        return stageIndexes(snapshot, specs, properties, SegmentMerge.DELTA);
    }

    /** The specs among {@code specs} that {@link #stageIndexes} would work on at {@code version} of {@code ref}. */
    Mono<List<IndexSpec>> indexWork(TableRef ref, long version, List<IndexSpec> specs);

    /**
     * The specs among {@code specs} that {@code index ensure} creates at {@code version} of {@code ref} (existence-gated,
     * as the reference's): an index the version lacks and can build, or one built with settings other than today's (an
     * inverted index of an earlier tokenizer), which {@link #stageIndexes} rebuilds. Partial indexes are optimize's.
     */
    Mono<List<IndexSpec>> indexesToCreate(TableRef ref, long version, List<IndexSpec> specs);

    /**
     * The indexes of {@code ref} at {@code version} that do not cover every fragment of that version (fragments
     * appended after the index was built, or written by a compaction of unindexed ones), sorted; empty when there
     * are none.
     */
    default Mono<List<String>> partialIndexes(TableRef ref, long version) {
        return partialIndexes(ref, version, 0);
    }

    /**
     * As {@link #partialIndexes(TableRef, long)}, but only the indexes whose fragments not covered hold more than
     * {@code unindexedShare} (0 to 1) of the version's live rows: for a caller that leaves a mostly complete index
     * alone (Lance scans the fragments it does not cover, so answers stay exact).
     */
    Mono<List<String>> partialIndexes(TableRef ref, long version, double unindexedShare);

    /** True when every version in {@code (base, upTo]} of {@code ref} has exactly {@code base}'s fragments. */
    Mono<Boolean> sameFragments(TableRef ref, long base, long upTo);

    /** Live rows (physical minus deleted) of each fragment of {@code snapshot}, by fragment id in the dataset's order. */
    Mono<Map<Integer, Long>> liveRowsByFragment(TableSnapshot snapshot);

    /**
     * The rows an approximate nearest-neighbour search through {@code snapshot}'s vector index returns (at most
     * {@code k}, closest first, with Lance's {@code _distance}). Only for a table that has a vector index on the
     * column; unindexed fragments are searched exhaustively by Lance. No rows when Lance 0.39 cannot answer
     * because the index's candidates include rows deleted since the build (callers then search exactly).
     */
    Mono<List<Map<String, Object>>> nearest(TableSnapshot snapshot, NearestRequest request);

    /**
     * A full-text query through {@code snapshot}'s inverted index {@code indexName} on the request's column: the
     * matching rows, best BM25 score first, each with Lance's {@code _score}; rows appended after the build are
     * searched by Lance too, deleted ones never returned. Lance orders ties arbitrarily, so callers break them.
     * Empty when that version has no such index, or one built with another tokenizer than the engine's (callers
     * then evaluate exactly).
     */
    Mono<Optional<List<Map<String, Object>>>> fullText(TableSnapshot snapshot, String indexName, FullTextRequest request);

    /**
     * How many rewrite tasks a compaction of {@code ref}'s latest version would run (0: already compact). A
     * compaction of {@code t} tasks started at version {@code E} lands exactly {@code t} reserve versions and then
     * the rewrite, at {@code E + t + 1}, unless another writer commits in between.
     */
    Mono<Integer> compactionTasks(TableRef ref);

    /**
     * The Lance operation that produced each version in {@code (after, upTo]} of {@code ref}, oldest first:
     * {@code Append}, {@code Delete}, {@code Update}, {@code Overwrite}, {@code Restore}, {@code ReserveFragments},
     * {@code Rewrite}, {@code CreateIndex}, … A branch's fork version, whose transaction Lance cannot hand to Java
     * without aborting the JVM, is named {@code Clone} without reading it. {@link TableHistory#isMaintenance} tells
     * compaction apart.
     */
    Mono<List<String>> operationsBetween(TableRef ref, long after, long upTo);

    /**
     * The transaction of every version in {@code (after, upTo]} of {@code ref}, oldest first, with the value of
     * transaction property {@code key}; one dataset open for the whole range. A branch's fork version (whose
     * transaction Lance cannot hand to Java without aborting) is an empty entry, never read.
     */
    Mono<List<Optional<TransactionMark>>> transactionMarks(TableRef ref, long after, long upTo, String key);

    /**
     * How {@code before} and {@code after} (two snapshots of the dataset at one path, on any refs) differ by fragment
     * (see {@link FragmentDiff}); snapshots of different paths share nothing. Rows that only a deletion vector tells
     * apart are picked one by one, at most {@code maxPickedRows} per side; past that, their fragments are read whole.
     * One storage call; it reads no column data.
     */
    Mono<FragmentDiff> fragmentDiff(TableSnapshot before, TableSnapshot after, int maxPickedRows);

    /** The rows {@code picks} names in {@code snapshot}, every column, in no particular order. */
    Flux<RowBatch> rowsAt(TableSnapshot snapshot, FragmentDiff.RowPicks picks);

    /**
     * Where each value of the string {@code column} lives at {@code snapshot} (of the given fragments only, when
     * named): one key-only scan with row ids, fingerprinted in place. See {@link KeyRowIndex} for how it stays exact.
     */
    Mono<KeyRowIndex> keyRows(TableSnapshot snapshot, String column, java.util.Optional<List<Integer>> fragments);

    /**
     * The rows of {@code snapshot} with these Lance row ids (as {@link #keyRows} names them), projected to
     * {@code columns}, in no particular order. Fails for a blob-encoded column (read those by scan).
     */
    Flux<RowBatch> takeRows(TableSnapshot snapshot, List<Long> rowIds, List<String> columns);

    /** Creates Lance branch {@code name} at {@code fromVersion} of {@code from} (main or another branch). */
    Mono<LanceBranch> createBranch(TableRef from, long fromVersion, String name);

    /** Deletes Lance branch {@code name} of the dataset at {@code path}. */
    Mono<Void> deleteBranch(String path, String name);

    /** The Lance branches of the dataset at {@code path}, sorted by name. */
    Mono<List<LanceBranch>> listBranches(String path);

    /**
     * Plans a version GC of the dataset at key {@code location} under {@code root} (the graph root's object store: a
     * local directory or an S3 prefix; Lance opens it at {@code root.rootUri() + "/" + location}) and all its Lance
     * branches, deleting nothing: each ref's versions that {@code retention} does not keep (a ref with no entry keeps
     * all; its latest version and every version a branch was forked from are always kept), and the files only those
     * versions reference, plus data and deletion files no version references last modified before
     * {@code orphanCutoff}. The plan's locations are keys of {@code root}.
     */
    Mono<VersionGcPlan> planVersionGc(ObjectStore root, String location,
                                      Map<Optional<String>, VersionRetention> retention, java.time.Instant orphanCutoff);

    /**
     * Deletes one phase of a plan through {@code root}, the store it was planned on (files first, then manifests: a
     * kill between them leaves every kept version whole and the plan can be made and applied again); emits the
     * bytes freed. Callers hold every writer off.
     */
    Mono<Long> applyVersionGc(ObjectStore root, VersionGcPlan plan, VersionGcPlan.Phase phase);

    @Override
    void close();
}
