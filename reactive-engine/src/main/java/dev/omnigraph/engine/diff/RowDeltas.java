package dev.omnigraph.engine.diff;

import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.SqlLiterals;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.error.StorageFault;
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
 * The row-delta engine: what changed, by {@code id}, between two exact pins of one table. The pins may be two
 * versions on one Lance ref, or a branch fork and the parent version it forked from (any two snapshots whose
 * rows share the {@code id} key). Either side may be absent (a table registered or dropped in between): every
 * row of the other side is then an insert or a delete.
 *
 * <p>Each side is read in id order in chunks of {@link #BATCH_ROWS} rows (a pushed-down {@code id > last} filter and
 * a native top-k sort per chunk), and the two sides are merged as they stream: the heap holds about two chunks per
 * side plus a small prefetch, whatever the table size, and Lance's top-k holds one chunk natively. The price is one
 * filtered pass over a side per chunk. Only fragments the two versions do not hold identically are read
 * ({@link TableStorage#fragmentDiff}: same id, data files and deletion file means the same rows), so a diff costs
 * O(changed² / BATCH_ROWS) rows read, where {@code changed} counts the rows of the fragments a change touched.
 * An {@code id} on both sides whose rows are equal column for column (typed, see {@link RowValues}) is unchanged
 * and not emitted; otherwise it is an update carrying both images. Output is in id order, so a caller pages
 * by passing the last id it consumed as {@code afterId} (the scan resumes with {@code id > afterId} pushed down).
 */
public final class RowDeltas {
    /** Rows per scanner batch on each side: the bound on what one side holds on the heap at a time. */
    public static final int BATCH_ROWS = 4096;
    private static final int PREFETCH = 256;
    private static final Comparator<Sided> ORDER = Comparator.comparing(Sided::id, RowValues.ID_ORDER)
            .thenComparingInt(Sided::side);

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
            return merged(before.map(s -> sorted(s, afterId, 0, ScanRequest.all())).orElseGet(Flux::empty),
                    after.map(s -> sorted(s, afterId, 1, ScanRequest.all())).orElseGet(Flux::empty));
        }
        // Fragments both versions hold identically hold the same rows: only the others are read.
        return tables.fragmentDiff(before.get(), after.get()).flatMapMany(diff -> merged(
                sorted(before.get(), afterId, 0, ScanRequest.all().onFragments(diff.beforeOnly())),
                sorted(after.get(), afterId, 1, ScanRequest.all().onFragments(diff.afterOnly()))));
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
     * One side in id order, as a sequence of bounded top-k scans ({@code id > last ORDER BY id LIMIT BATCH_ROWS}),
     * each answered in a single batch. A full native sort would stream the side once, but Lance 0.39 hands the
     * sorted batches after the first to Java as sliced arrays the Arrow C-data import misreads (out-of-range string
     * offsets), so every scan here is kept to one batch.
     */
    private Flux<Sided> sorted(TableSnapshot snapshot, Optional<String> afterId, int side, ScanRequest scope) {
        if (scope.fragments().filter(List::isEmpty).isPresent()) {
            return Flux.empty();
        }
        return chunk(snapshot, afterId, scope)
                .expand(rows -> rows.size() < BATCH_ROWS ? Mono.empty()
                        : chunk(snapshot, Optional.of(RowValues.id(rows.get(rows.size() - 1))), scope))
                .concatMapIterable(rows -> rows)
                .map(row -> new Sided(row, side));
    }

    private Mono<List<Map<String, Object>>> chunk(TableSnapshot snapshot, Optional<String> afterId, ScanRequest scope) {
        ScanRequest request = scope.orderedBy(RowValues.ID).withLimit(BATCH_ROWS).withBatchSize(BATCH_ROWS);
        if (afterId.isPresent()) {
            request = request.withFilter(SqlLiterals.compare(RowValues.ID, SqlLiterals.Comparison.GT,
                    SqlLiterals.quote(afterId.get())));
        }
        return tables.scan(snapshot, request).collectList().map(batches -> {
            // A second batch would be a sliced array (see above): refuse rather than risk misread values.
            if (batches.size() > 1) {
                throw new StorageFault("a sorted chunk of " + snapshot.ref() + " came back in " + batches.size()
                        + " batches; refusing to read sliced Arrow arrays", null);
            }
            return batches.isEmpty() ? List.<Map<String, Object>>of() : batches.get(0).rows();
        });
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
