package dev.omnigraph.storage.manifest;

import dev.omnigraph.storage.CommittedVersion;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.WriterFence;
import dev.omnigraph.storage.error.LeaseLost;
import dev.omnigraph.storage.error.CommitConflict;
import dev.omnigraph.storage.error.ManifestConflict;
import dev.omnigraph.storage.error.ReadSetChanged;
import dev.omnigraph.storage.error.StorageFault;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * The visibility fence of every write: lands one graph commit as ONE Lance transaction on {@code __manifest},
 * after checking the branch's identity, its exact graph head and every touched table's pin against the manifest
 * it read. The transaction rewrites the stamp row (so any two publishes on one branch touch the same row and
 * Lance lets only one of them land, across processes too), the touched table rows and the head row, and appends
 * the commit row.
 *
 * <p>When Lance reports contention the publisher re-reads and re-checks, up to {@link #PUBLISHER_RETRY_BUDGET}
 * times. An exact-head request therefore never re-parents: after a lost race its re-check fails with
 * {@link ReadSetChanged} ({@code graph_head:<branch>}); other broken expectations (branch identity, table pins)
 * with {@link ManifestConflict}. Only {@link ExpectedHead.Any} requests land on a moved head.
 *
 * <p>Every publish writes its writer tenure's epoch into the stamp row and refuses a manifest stamped with a higher
 * one ({@link LeaseLost}): the same CAS that orders publishes makes the epoch check exact, at no extra storage call.
 */
public final class ManifestBatchPublisher {
    public static final int PUBLISHER_RETRY_BUDGET = 5;
    /** Small manifest fragments (one per publish) that trigger a fold after a publish. */
    public static final int COMPACT_AT_FRAGMENTS = 32;
    /**
     * Rows per folded manifest fragment. A full fragment is never rewritten again, so a fold costs the
     * publishes since the last one, not the graph's whole lineage (which only grows).
     */
    public static final long MANIFEST_FRAGMENT_ROWS = 8_192;
    /**
     * Commit rows the newest manifest fragment (the tail) may hold before a publish stops writing them again: each
     * publish planned on the state this publisher kept writes the tail's rows again beside its own and removes the
     * old tail whole, so the commits since the last fold cost one small fragment, not one fragment (and a deletion
     * file) each; a publish that fills it folds, as {@link #COMPACT_AT_FRAGMENTS} per-publish fragments did.
     */
    public static final int TAIL_COMMITS = COMPACT_AT_FRAGMENTS;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ManifestBatchPublisher.class);

    private final ManifestStore store;
    private final WriterFence fence;

    /** A publisher outside any writer tenure (epoch 0): tests and tools on a manifest no tenure has fenced. */
    public ManifestBatchPublisher(ManifestStore store) {
        this(store, WriterFence.NONE);
    }

    /** A publisher of the writer tenure {@code fence}: each publish carries its epoch and is refused once outranked. */
    public ManifestBatchPublisher(ManifestStore store, WriterFence fence) {
        this.store = store;
        this.fence = fence;
    }

    /**
     * Refuses with {@link LeaseLost} when this process's tenure is known to be gone, or when {@code state} carries a
     * higher writer epoch than this publisher's (a newer holder fenced the manifest). No storage call: writers call
     * it on the state their recheck just loaded, so a lost holder stops before its first effect.
     */
    public void requireFenced(ManifestState state) {
        fence.requireHeld();
        if (state.writerEpoch() > fence.epoch()) {
            throw new LeaseLost(fence.epoch(), "the manifest of branch " + state.branch() + " is fenced by writer epoch "
                    + state.writerEpoch() + ": another process took the writer lease over");
        }
    }

    public Mono<GraphCommit> publish(PublishRequest request) {
        return publish(request, Mono.empty());
    }

    /**
     * As {@link #publish(PublishRequest)}, but the Lance commit waits for {@code beforeCommit}, which runs while
     * the first attempt is planned and staged (staged files are invisible until committed, so nothing a crash
     * could see changes order). A writer passes the table commits its publish names here, so the manifest Update
     * is staged while they land. If {@code beforeCommit} fails, the staged attempt is discarded and its error
     * returned; nothing was committed.
     */
    public Mono<GraphCommit> publish(PublishRequest request, Mono<Void> beforeCommit) {
        return Mono.defer(() -> {
            Mono<Prepared> first = store.kept(request.branch())
                    .map(kept -> prepare(request, Mono.just(kept), true))
                    .orElseGet(() -> prepare(request, store.load(request.branch()), false));
            return Mono.zip(first.materialize(), beforeCommit.materialize()).flatMap(both -> {
                if (both.getT2().isOnError()) {
                    Mono<Void> release = both.getT1().hasValue()
                            ? store.tables().discard(both.getT1().get().handle()) : Mono.empty();
                    return release.then(Mono.<GraphCommit>error(both.getT2().getThrowable()));
                }
                return both.getT1().isOnError() ? Mono.error(both.getT1().getThrowable())
                        : commit(request, both.getT1().get(), 0);
            });
        });
    }

    /** One attempt, planned and staged: what it plans on, the commit it lands and its staged Lance Update. */
    private record Prepared(ManifestState state, GraphCommit commit, List<Map<String, Object>> rows,
                            dev.omnigraph.storage.StagedHandle handle) {
    }

    /**
     * Plans an attempt on {@code current} and stages it. The first is planned on the state this store kept
     * (normally the one the writer just rechecked under its gates), with no read at all: if another publish moved
     * the manifest since, the CAS refuses it, and every retry loads the manifest afresh. Only the live manifest
     * may refuse a request, so a rejection by the kept state loads and plans again.
     */
    private Mono<Prepared> prepare(PublishRequest request, Mono<ManifestState> current, boolean kept) {
        return current
                .zipWith(checkBranch(request))
                .flatMap(loaded -> {
                    ManifestState state = loaded.getT1();
                    GraphCommit commit;
                    try {
                        commit = plan(request, state, loaded.getT2());
                    } catch (ReadSetChanged | ManifestConflict rejected) {
                        return kept ? prepare(request, store.load(request.branch()), false) : Mono.error(rejected);
                    }
                    // The CAS below makes this check exact: a fence landed since moves the version and loses it.
                    try {
                        requireFenced(state);
                    } catch (LeaseLost lost) {
                        return Mono.error(lost);
                    }
                    List<Map<String, Object>> own = rows(request, state, commit, fence.epoch());
                    ManifestState.Tail carried = carried(state);
                    List<Map<String, Object>> rows = withTail(own, carried);
                    return store.stageRows(state, rows, commit.id(), carried.addresses())
                            .map(handle -> new Prepared(state, commit, rows, handle));
                });
    }

    /** Commits a prepared attempt; on Lance contention plans again on a fresh load, up to the retry budget. */
    private Mono<GraphCommit> commit(PublishRequest request, Prepared prepared, int retries) {
        return store.commitRows(prepared.handle(), prepared.commit().id())
                .flatMap(committed -> {
                    ManifestState after = landedState(prepared.state(), request, prepared.commit(), committed, prepared.rows(), fence.epoch());
                    store.published(after);
                    return foldIfFragmented(request.branch(), after);
                })
                .thenReturn(prepared.commit())
                .onErrorResume(CommitConflict.class, contention -> {
                    if (retries >= PUBLISHER_RETRY_BUDGET) {
                        return Mono.error(new ManifestConflict("branch " + request.branch(),
                                "a publish within " + PUBLISHER_RETRY_BUDGET + " retries",
                                "continuous contention from concurrent writers"));
                    }
                    return prepare(request, store.load(request.branch()), false)
                            .flatMap(again -> commit(request, again, retries + 1));
                });
    }

    /** The manifest the publish produced, as a load would read it; the store keeps it for the next write. */
    private static ManifestState landedState(ManifestState state, PublishRequest request, GraphCommit commit,
                                             CommittedVersion committed, List<Map<String, Object>> rows,
                                             long epoch) {
        TableSnapshot landed = committed.snapshot().orElseGet(() -> new TableSnapshot(state.manifest().ref(),
                committed.version(), state.manifest().schema(), committed.rowCount(), state.manifest().fragmentCount() + 1));
        if (state.rowAddresses().isEmpty() || committed.newestFragment().isEmpty()
                || committed.newestFragment().get().physicalRows() != rows.size()) {
            return state.afterPublish(landed, request.tableUpdates(), commit.id(), epoch, schemaAfter(request, state),
                    Map.of(), ManifestState.Tail.NONE);
        }
        // Where the rows a publish wrote now live: the one fragment it added (Lance numbers it past every existing
        // fragment), in the order they were written; every other row kept its address. That fragment is the tail.
        CommittedVersion.NewestFragment added = committed.newestFragment().get();
        Map<String, Long> next = new java.util.HashMap<>(state.rowAddresses());
        Map<String, Long> tail = new java.util.HashMap<>();
        for (int offset = 0; offset < rows.size(); offset++) {
            Map<String, Object> row = rows.get(offset);
            String objectId = (String) row.get(ManifestSchema.OBJECT_ID);
            tail.put(objectId, added.address(offset));
            if (!ManifestSchema.TYPE_COMMIT.equals(row.get(ManifestSchema.OBJECT_TYPE))) {
                next.put(objectId, added.address(offset));
            }
        }
        return state.afterPublish(landed, request.tableUpdates(), commit.id(), epoch, schemaAfter(request, state), next,
                new ManifestState.Tail(rows, tail));
    }

    /** The schema identity the stamp records after {@code request}: its own (a schema apply's), else the state's. */
    private static Optional<String> schemaAfter(PublishRequest request, ManifestState state) {
        return request.schemaIdentity().or(state::schemaIdentity);
    }

    /**
     * The tail this publish writes again: the rows of the newest fragment as the publish that added it wrote them,
     * when {@code state} knows them (it is the state a publish of this store left, planned on exactly) and the tail
     * holds fewer than {@link #TAIL_COMMITS} commits. Its rows are all live at that version (only a later publish or
     * a fold could have touched them, and either moves the version), so writing them again changes no logical row:
     * the old fragment loses every row and is removed whole. A stale state loses its CAS as any publish does.
     */
    private static ManifestState.Tail carried(ManifestState state) {
        ManifestState.Tail tail = state.tail();
        return state.rowAddresses().isEmpty() || tail.rows().isEmpty() || tail.commits() >= TAIL_COMMITS
                ? ManifestState.Tail.NONE : tail;
    }

    /** {@code own} (state rows, then its commit row last) with the tail's other rows before its commit row. */
    private static List<Map<String, Object>> withTail(List<Map<String, Object>> own, ManifestState.Tail tail) {
        if (tail.rows().isEmpty()) {
            return own;
        }
        java.util.Set<Object> written = new java.util.HashSet<>();
        own.forEach(row -> written.add(row.get(ManifestSchema.OBJECT_ID)));
        List<Map<String, Object>> rows = new ArrayList<>(own.subList(0, own.size() - 1));
        tail.rows().stream().filter(row -> !written.contains(row.get(ManifestSchema.OBJECT_ID))).forEach(rows::add);
        rows.add(own.get(own.size() - 1));
        return List.copyOf(rows);
    }

    /**
     * Every publish adds a fragment to {@code __manifest}, and reading the manifest costs one pass over its
     * fragments, so past {@link #COMPACT_AT_FRAGMENTS} small ones (beside the full fragments the rows fill) the
     * publisher folds them into fragments of {@link #MANIFEST_FRAGMENT_ROWS} rows ({@link ManifestFold}: the rows
     * written again, not Lance's compaction, which would keep a per-publish row-id run in every later manifest file).
     * Best effort: the commit has landed; a failed fold is logged and retried by a later publish. A fold moves the
     * manifest's version, so the store's kept state no longer matches it and the next load reads afresh.
     */
    private Mono<Void> foldIfFragmented(String branch, ManifestState published) {
        long fullFragments = Math.max(0, published.manifest().rowCount()) / MANIFEST_FRAGMENT_ROWS;
        if (published.manifest().fragmentCount() < COMPACT_AT_FRAGMENTS + fullFragments
                && published.tail().commits() < TAIL_COMMITS) {
            return Mono.empty();
        }
        return ManifestFold.fold(store.tables(), store.ref(branch), MANIFEST_FRAGMENT_ROWS)
                .doOnNext(folded -> folded.ifPresent(version -> store.superseded(published)))
                .doOnError(failure -> store.superseded(published))
                .then()
                .onErrorResume(failure -> {
                    LOG.warn("folding {} on branch {} failed; a later publish retries: {}", store.manifestPath(),
                            branch, failure.toString());
                    return Mono.empty();
                });
    }

    private Mono<BranchIdentity> checkBranch(PublishRequest request) {
        return store.branchIdentity(request.branch()).flatMap(live -> {
            if (request.expectedBranch().isPresent() && !request.expectedBranch().get().equals(live)) {
                return Mono.error(new ManifestConflict("identity of branch " + request.branch(),
                        request.expectedBranch().get().toString(), live.toString()));
            }
            return Mono.just(live);
        });
    }

    /** Checks every expectation against {@code state} and fixes the commit's lineage and deltas. */
    private GraphCommit plan(PublishRequest request, ManifestState state, BranchIdentity branch) {
        Optional<String> head = state.head();
        if (request.expectedHead() instanceof ExpectedHead.Exact exact && !exact.commitId().equals(head)) {
            // As the reference: losing the exact-head race is a read-set conflict on graph_head:<branch>.
            throw new ReadSetChanged("graph_head:" + request.branch(), exact.commitId().orElse("<none>"), head.orElse("<none>"));
        }
        List<TableDelta> deltas = new ArrayList<>();
        for (TableEntry update : request.tableUpdates()) {
            long live = state.table(update.tableKey()).map(TableEntry::version).orElse(0L);
            long expected = request.expectedPins().get(update.tableKey());
            if (live != expected) {
                throw new ManifestConflict("pin of " + update.tableKey(), Long.toString(expected), Long.toString(live));
            }
            deltas.add(new TableDelta(update.tableKey(), live, update.version()));
        }
        request.expectedPins().forEach((tableKey, expected) -> {
            long live = state.table(tableKey).map(TableEntry::version).orElse(0L);
            if (live != expected) {
                throw new ManifestConflict("pin of " + tableKey, Long.toString(expected), Long.toString(live));
            }
        });
        List<String> parents = new ArrayList<>();
        head.ifPresent(parents::add);
        if (head.isEmpty()) {
            // A fresh branch's first commit parents onto the head it inherited from its fork point.
            Optional.ofNullable(state.heads().get(branch.parent().orElse(GraphBranches.MAIN))).ifPresent(parents::add);
        }
        request.mergedParentId().ifPresent(parents::add);
        return new GraphCommit(request.commitId(), parents, GraphBranches.lanceRef(request.branch()), request.actorId(),
                request.createdAtMicros(), request.operation(), deltas, state.manifestVersion() + 1);
    }

    private static List<Map<String, Object>> rows(PublishRequest request, ManifestState state, GraphCommit commit,
                                                  long epoch) {
        List<Map<String, Object>> rows = new ArrayList<>();
        rows.add(ManifestRows.stamp(ManifestSchema.INTERNAL_SCHEMA_VERSION, epoch, schemaAfter(request, state)));
        for (TableEntry update : request.tableUpdates()) {
            TableEntry registered = state.tables().get(update.tableKey());
            // A dropped type's tombstone keeps its key; a type re-created under that name registers a new identity.
            if (registered != null && !registered.tombstone() && !registered.objectId().equals(update.objectId())) {
                throw new StorageFault("publish of " + commit.id() + " would rebind " + update.tableKey()
                        + " to another table identity", null);
            }
            rows.add(ManifestRows.table(update));
        }
        rows.add(ManifestRows.head(request.branch(), commit.id()));
        rows.add(ManifestRows.commit(commit, request.idempotency()));
        return rows;
    }
}
