package dev.omnigraph.engine.load;

import dev.omnigraph.engine.write.CommittedRows;
import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.manifest.ManifestStore;
import dev.omnigraph.storage.manifest.TableDelta;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import reactor.core.publisher.Mono;

/**
 * The committed ids of main-branch tables at exact versions, kept per graph handle so that consecutive loads
 * stop scanning the same key columns: an edge load checks its endpoints against a node table the loads before it
 * left unchanged, and each append checks its ids against the table the previous append extended.
 *
 * <p>Exact because a table's content at (dataset, incarnation, version) never changes: sets are learned only for
 * versions a published token pins, and a set is carried to the next version only when this handle's own load
 * published exactly that version from it on main (an append or merge adds its ids, deletes nothing; loads never share a
 * commit with other writes). Other Lance branches are never cached: a branch deleted and created again may reuse
 * version numbers. Bounded by {@link #MAX_KEYS} ids per handle; one version per table.
 */
final class CommittedKeyCache {
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

        Version next() {
            return new Version(location, stableTableId, incarnationId, version + 1);
        }
    }

    private record Known(Version version, Set<String> ids) {}

    private final Map<String, Known> byTable = new HashMap<>();

    static CommittedKeyCache of(WriteContext ctx) {
        return BY_HANDLE.computeIfAbsent(ctx.manifest(), handle -> new CommittedKeyCache());
    }

    /** Key sets for {@link CommittedRows}: a known set, or one learned by a scan that was due anyway. */
    CommittedRows.KeySets keySets(WriteContext ctx) {
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
     * After this handle's load published {@code delta} from {@code pin}: the ids of the new version are the old
     * ones plus {@code added}, when the set of exactly the pinned version is known and the delta is one version.
     */
    synchronized void published(TableEntry pin, TableDelta delta, Collection<String> added) {
        Optional<Version> from = pin == null ? Optional.empty() : Version.of(pin);
        Known known = from.isEmpty() ? null : byTable.get(pin.tableKey());
        if (known == null || !known.version().equals(from.get())
                || delta.fromVersion() != pin.version() || delta.toVersion() != pin.version() + 1) {
            return;
        }
        Set<String> ids = new HashSet<>(known.ids());
        ids.addAll(added);
        put(pin.tableKey(), new Known(from.get().next(), Collections.unmodifiableSet(ids)));
    }

    private synchronized Optional<Set<String>> known(String tableKey, Version version) {
        Known known = byTable.get(tableKey);
        return known != null && known.version().equals(version) ? Optional.of(known.ids()) : Optional.empty();
    }

    private synchronized void learn(String tableKey, Version version, Set<String> ids) {
        put(tableKey, new Known(version, ids));
    }

    private void put(String tableKey, Known known) {
        byTable.remove(tableKey);
        long others = byTable.values().stream().mapToLong(k -> k.ids().size()).sum();
        if (known.ids().size() + others <= MAX_KEYS) {
            byTable.put(tableKey, known);
        }
    }
}
