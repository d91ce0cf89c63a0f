package dev.omnigraph.engine.diff;

import dev.omnigraph.storage.FragmentDiff.RowPicks;
import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.SqlLiterals;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.pojo.Field;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The change reader: what changed, by {@code id}, between two exact pins of one table. The pins may be two versions
 * on one Lance ref, or a branch fork and the parent version it forked from (any two snapshots whose rows share the
 * {@code id} key). Either side may be absent (a table registered or dropped in between): every row of the other
 * side is then an insert or a delete.
 *
 * <p>It reads only what the two versions do not share, as their fragment metadata proves
 * ({@link TableStorage#fragmentDiff}), whatever happened in between and whether or not those versions still exist:
 * <ul>
 *   <li>fragments both hold identically are not read;</li>
 *   <li>rows a deletion vector alone tells apart (the old image of an update, a deleted row) are picked by row id,
 *       at most {@link #MAX_PICKED_ROWS} per side: a one-row update of a large table reads one row per side;</li>
 *   <li>everything else (new fragments, fragments a compaction or an overwrite rewrote, or picks past the budget) is
 *       read whole, in one natively sorted scan per side: a full comparison, linear in the rows it reads.</li>
 * </ul>
 * The two sides are merged as they stream, in id order. An {@code id} on both sides whose rows are equal column for
 * column (typed, see {@link RowValues}) is unchanged and not emitted; otherwise it is an update carrying both images.
 * A caller pages by passing the last id it consumed as {@code afterId} ({@code id > afterId} is pushed down).
 */
public final class RowDeltas {
    /**
     * Rows picked one by one per side (held on the heap and sorted there). Past it, the fragments they live in are
     * read whole, sorted by Lance: a bound on heap, not on correctness.
     */
    public static final int MAX_PICKED_ROWS = 8192;
    private static final int PREFETCH = 256;
    private static final Comparator<Sided> ORDER = Comparator.comparing(Sided::id, RowValues.ID_ORDER)
            .thenComparingInt(Sided::side);
    private static final Comparator<Map<String, Object>> BY_ID = Comparator.comparing(RowValues::id, RowValues.ID_ORDER);

    private final TableStorage tables;

    public RowDeltas(TableStorage tables) {
        this.tables = Objects.requireNonNull(tables, "tables");
    }

    /** Opens the exact pin a manifest entry names, below the graph {@code root}. */
    public Mono<TableSnapshot> pin(String root, TableEntry entry) {
        return tables.open(new TableRef(root + "/" + entry.location(), entry.lanceBranch()), OptionalLong.of(entry.version()));
    }

    /**
     * The changes from {@code before} to {@code after} with {@code id > afterId} (all when empty), in id order.
     * Cancelling the returned Flux closes both scans.
     */
    public Flux<RowChange> between(Optional<TableSnapshot> before, Optional<TableSnapshot> after, Optional<String> afterId) {
        if (before.isEmpty() && after.isEmpty()) return Flux.empty();
        if (before.isPresent() && after.isPresent() && samePin(before.get(), after.get())) return Flux.empty();
        if (before.isEmpty() || after.isEmpty()) {
            return merged(before.map(s -> side(s, Optional.empty(), RowPicks.NONE, afterId, 0)).orElseGet(Flux::empty),
                    after.map(s -> side(s, Optional.empty(), RowPicks.NONE, afterId, 1)).orElseGet(Flux::empty));
        }
        return tables.fragmentDiff(before.get(), after.get(), MAX_PICKED_ROWS).flatMapMany(diff -> diff.isEmpty()
                ? Flux.empty()
                : merged(side(before.get(), Optional.of(diff.beforeOnly()), diff.beforeRows(), afterId, 0),
                        side(after.get(), Optional.of(diff.afterOnly()), diff.afterRows(), afterId, 1)));
    }

    private static Flux<RowChange> merged(Flux<Sided> old, Flux<Sided> now) {
        return Flux.mergeComparing(PREFETCH, ORDER, old, now)
                .bufferUntilChanged(Sided::id)
                .concatMapIterable(RowDeltas::classify);
    }

    /** {@link #between} in lists of at most {@code rows} changes, for writers that apply a delta in chunks. */
    public Flux<List<RowChange>> batches(Optional<TableSnapshot> before, Optional<TableSnapshot> after,
                                         Optional<String> afterId, int rows) {
        return between(before, after, afterId).buffer(rows);
    }

    /** True when both snapshots have the same columns (names and types, in order): a row diff is meaningful. */
    public static boolean sameColumns(TableSnapshot a, TableSnapshot b) {
        List<Field> x = a.schema().getFields();
        List<Field> y = b.schema().getFields();
        if (x.size() != y.size()) return false;
        for (int i = 0; i < x.size(); i++) {
            if (!x.get(i).getName().equals(y.get(i).getName()) || !x.get(i).getType().equals(y.get(i).getType())) return false;
        }
        return true;
    }

    private static boolean samePin(TableSnapshot a, TableSnapshot b) {
        return a.ref().equals(b.ref()) && a.version() == b.version();
    }

    /**
     * One side in id order: its whole {@code fragments} (every fragment when empty) in one scan Lance sorts, merged
     * with its picked rows, sorted here. A snapshot holds each id once, so the two never share an id.
     */
    private Flux<Sided> side(TableSnapshot snapshot, Optional<List<Integer>> fragments, RowPicks picks,
                             Optional<String> afterId, int side) {
        Flux<Map<String, Object>> whole = fragments.filter(List::isEmpty).isPresent() ? Flux.empty()
                : tables.scan(snapshot, wholeScan(fragments, afterId)).concatMapIterable(RowBatch::rows);
        Flux<Map<String, Object>> picked = picks.isEmpty() ? Flux.empty()
                : tables.rowsAt(snapshot, picks).concatMapIterable(RowBatch::rows)
                        .filter(row -> afterId.isEmpty() || RowValues.ID_ORDER.compare(RowValues.id(row), afterId.get()) > 0)
                        .collectSortedList(BY_ID)
                        .flatMapIterable(rows -> rows);
        return Flux.mergeComparing(PREFETCH, BY_ID, whole, picked).map(row -> new Sided(row, side));
    }

    private static ScanRequest wholeScan(Optional<List<Integer>> fragments, Optional<String> afterId) {
        ScanRequest sorted = ScanRequest.all().orderedBy(RowValues.ID);
        ScanRequest request = fragments.map(sorted::onFragments).orElse(sorted);
        return afterId.map(id -> request.withFilter(SqlLiterals.compare(RowValues.ID, SqlLiterals.Comparison.GT,
                SqlLiterals.quote(id)))).orElse(request);
    }

    private static List<RowChange> classify(List<Sided> group) {
        if (group.size() == 2) {
            Map<String, Object> before = group.get(0).row();
            Map<String, Object> after = group.get(1).row();
            return RowValues.rowsEqual(before, after) ? List.of() : List.of(RowChange.updated(before, after));
        }
        if (group.size() != 1) {
            throw new IllegalStateException("id " + group.get(0).id() + " appears " + group.size() + " times in one diff");
        }
        Sided only = group.get(0);
        return List.of(only.side() == 0 ? RowChange.deleted(only.row()) : RowChange.inserted(only.row()));
    }

    /** A row tagged with its side: 0 = before, 1 = after (before sorts first within one id). */
    private record Sided(Map<String, Object> row, int side) {
        String id() {
            return RowValues.id(row);
        }
    }
}
