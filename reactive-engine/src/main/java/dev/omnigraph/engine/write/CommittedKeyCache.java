package dev.omnigraph.engine.write;

import dev.omnigraph.storage.CommittedVersion;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.ManifestStore;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.AbstractSet;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import reactor.core.publisher.Mono;

/**
 * The committed ids of main-branch tables at exact versions, kept per graph handle so that consecutive writes
 * stop scanning the same key columns: an edge load checks its endpoints against a node table the loads before it
 * left unchanged, each append checks its ids against the table the previous append extended, and a keyed insert
 * that finds its key absent is staged as a plain append instead of an upsert that looks for it.
 *
 * <p>Exact because a table's content at (dataset, incarnation, version) never changes: sets are learned only for
 * versions a published token pins, and a set is carried to the next version only when this handle published
 * exactly that version from it on main with inserts or upserts whose rows are the table's whole change (a group's
 * union), and the row count Lance reports for the new version equals the set's size plus the new ids. Anything
 * else (a delete, an overwrite, a merge's row delta, a publish by another handle or process) leaves the set at its
 * old version, which no later pin asks for. Other Lance branches are never cached: a branch deleted and created
 * again may reuse version numbers. Bounded by {@link #MAX_KEYS} ids per handle; one version per table.
 */
public final class CommittedKeyCache {
    /** Ids kept per handle across its tables (a few tens of MiB at most); larger tables are looked up instead. */
    static final long MAX_KEYS = 1L << 18;
    static final String KEY_COLUMN = "id";

    private static final Map<ManifestStore, CommittedKeyCache> BY_HANDLE = Collections.synchronizedMap(new WeakHashMap<>());

    /** One table version: the dataset, its incarnation and the version, on the dataset's main branch. */
    private record Version(String location, long stableTableId, long incarnationId, long version) {
        static Optional<Version> of(TableEntry pin) {
            return pin.lanceBranch().isPresent() || pin.tombstone() ? Optional.empty()
                    : Optional.of(new Version(pin.location(), pin.stableTableId(), pin.incarnationId(), pin.version()));
        }

        Version next(int steps) {
            return new Version(location, stableTableId, incarnationId, version + steps);
        }
    }

    /**
     * The ids of one table at {@code version}: those of a learned version ({@code base}) plus those later loads of
     * this handle added ({@code added}: id → the version that added it). A publish adds its ids to the same map,
     * tagged with the new version, instead of copying the set, so carrying costs the load's ids, not the table's;
     * a reader still holding an older {@code Known} sees exactly its version's ids (only those tagged at or below).
     */
    private record Known(Version version, Set<String> base, Map<String, Long> added, long size) {
        static Known learned(Version version, Set<String> ids) {
            return new Known(version, ids, new ConcurrentHashMap<>(), ids.size());
        }

        /** How many of {@code ids} (distinct) this version does not hold. */
        long fresh(Collection<String> ids) {
            Set<String> at = ids();
            Set<String> seen = new java.util.HashSet<>();
            return ids.stream().filter(id -> seen.add(id) && !at.contains(id)).count();
        }

        /** The version {@code steps} on: these ids added (an id held already keeps its older tag). */
        Known next(Collection<String> ids, long fresh, int steps) {
            Version next = version.next(steps);
            Long tag = next.version();
            ids.forEach(id -> added.putIfAbsent(id, tag));
            return new Known(next, base, added, size + fresh);
        }

        Set<String> ids() {
            long at = version.version();
            return new AbstractSet<>() {
                @Override
                public boolean contains(Object id) {
                    if (base.contains(id)) return true;
                    Long addedAt = added.get(id);
                    return addedAt != null && addedAt <= at;
                }

                @Override
                public Iterator<String> iterator() {
                    return Stream.concat(base.stream(), added.entrySet().stream()
                            .filter(e -> e.getValue() <= at && !base.contains(e.getKey())).map(Map.Entry::getKey))
                            .iterator();
                }

                @Override
                public int size() {
                    return (int) size;
                }
            };
        }

        int held() {
            return base.size() + added.size();
        }
    }

    private final Map<String, Known> byTable = new HashMap<>();

    public static CommittedKeyCache of(WriteContext ctx) {
        return BY_HANDLE.computeIfAbsent(ctx.manifest(), handle -> new CommittedKeyCache());
    }

    /** Key sets for {@link CommittedRows}: a known set, or one learned by a scan that was due anyway. */
    public CommittedRows.KeySets keySets(WriteContext ctx) {
        return (pin, column, scanAnyway) -> {
            if (!KEY_COLUMN.equals(column)) {
                return Optional.empty();
            }
            Optional<Version> version = pin == null ? Optional.empty() : Version.of(pin);
            if (version.isEmpty()) {
                return Optional.empty();
            }
            Optional<Set<String>> known = known(pin.tableKey(), version.get());
            if (known.isPresent()) {
                return Optional.of(Mono.just(known.get()));
            }
            if (!scanAnyway || pin.rowCount() > MAX_KEYS) {
                return Optional.empty();
            }
            TableSnapshot snapshot = TableSnapshot.pinned(ctx.ref(pin), pin.version(), pin.rowCount());
            return Optional.of(ctx.tables().keysAmong(snapshot, column, value -> true)
                    .doOnNext(ids -> learn(pin.tableKey(), version.get(), ids)));
        };
    }

    /**
     * After this handle published {@code changes} (a whole group's union) on {@code branch} and each table landed
     * as {@code committed} says: carries every table whose one change added rows by id, exactly one version on,
     * with the row count the new version must then have. Called only for a publish that succeeded.
     */
    public void carry(String branch, ChangeSet changes, Map<String, CommittedVersion> committed,
                      java.util.Set<String> indexBuilt) {
        if (!GraphBranches.MAIN.equals(branch)) {
            return; // a branch's first write of a table lands on its fork, at a version number main may take too
        }
        Map<String, List<TableChange>> byTable = new HashMap<>();
        changes.changes().forEach(change -> byTable.computeIfAbsent(change.tableKey(), key -> new java.util.ArrayList<>()).add(change));
        byTable.forEach((tableKey, tableChanges) -> {
            TableChange change = tableChanges.get(0);
            CommittedVersion landed = committed.get(tableKey);
            boolean addsById = (change.kind() == TableChange.Kind.INSERT || change.kind() == TableChange.Kind.UPSERT)
                    && change.deleteIds().isEmpty();
            if (tableChanges.size() == 1 && addsById && landed != null) {
                carried(change.pin(), landed, change.rows().stream().map(row -> (String) row.get(KEY_COLUMN)).toList(),
                        indexBuilt.contains(tableKey) ? 2 : 1);
            }
        });
    }

    /**
     * {@code pin}'s set plus {@code ids}, as the version {@code landed} made: only if it is {@code steps} on (the data
     * commit, and an index build after it that changes no row) and counts match.
     */
    synchronized void carried(TableEntry pin, CommittedVersion landed, Collection<String> ids, int steps) {
        Optional<Version> from = Version.of(pin);
        Known known = from.isEmpty() ? null : byTable.get(pin.tableKey());
        if (known == null || !known.version().equals(from.get())) {
            return;
        }
        if (known.held() + ids.size() > MAX_KEYS) {
            byTable.remove(pin.tableKey()); // would pass the bound anyway: not worth counting a large load's ids
            return;
        }
        long fresh = known.fresh(ids);
        if (landed.version() != pin.version() + steps || landed.rowCount() != known.size() + fresh) {
            byTable.remove(pin.tableKey()); // not provably this set plus these ids: learn again when needed
            return;
        }
        put(pin.tableKey(), known.next(ids, fresh, steps));
    }

    /** The ids of {@code tableKey} at exactly {@code pin}'s version on main, when known. */
    Optional<Set<String>> known(TableEntry pin) {
        return Version.of(pin).flatMap(version -> known(pin.tableKey(), version));
    }

    private synchronized Optional<Set<String>> known(String tableKey, Version version) {
        Known known = byTable.get(tableKey);
        return known != null && known.version().equals(version) ? Optional.of(known.ids()) : Optional.empty();
    }

    /** Takes {@code ids} as those of {@code pin}'s version (as a key scan of it learns them). */
    void learn(TableEntry pin, Set<String> ids) {
        Version.of(pin).ifPresent(version -> learn(pin.tableKey(), version, ids));
    }

    private synchronized void learn(String tableKey, Version version, Set<String> ids) {
        put(tableKey, Known.learned(version, ids));
    }

    private void put(String tableKey, Known known) {
        byTable.remove(tableKey);
        long others = byTable.values().stream().mapToLong(Known::held).sum();
        if (known.held() + others <= MAX_KEYS) {
            byTable.put(tableKey, known);
        }
    }
}
