package dev.omnigraph.engine.write;

import dev.omnigraph.storage.KeysWanted;
import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.SqlLiterals;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Reads of committed rows at a token's pins, for validation and read-your-writes. */
public final class CommittedRows {
    /** Ids per {@code IN} list: keeps each Lance filter small. */
    static final int CHUNK = 512;

    /**
     * Committed rows per wanted value up to which one scan of the key column beats the {@code IN} filters. Measured
     * on 5,000,000 rows in 611 fragments with a full BTREE (docs/performance.md, "scale-reads"): each value an
     * {@code IN} filter finds costs about 0.65 ms (the index points at a row, which is then taken from its fragment;
     * 512 values 330–560 ms), while the key-only scan ({@code TableStorage.keysAmong}) reads about 17 million rows a
     * second (290 ms for all 5M). The bound sits below the measured break-even (about 10,000 rows per value), since
     * the scan's cost is certain and grows with the table while the per-value cost falls on small, cached tables.
     */
    static final int WHOLE_SCAN_ROWS_PER_VALUE = 4_096;

    /** Committed rows up to which {@link #provenAbsent} learns a table's ids by scanning its key column. */
    static final long LEARN_ROWS = 65_536;

    /**
     * Whole sets of committed keys a caller keeps for exact pins (the loader, across consecutive loads), asked
     * before any lookup: the values of {@code column} at {@code pin}, or empty to look the wanted ones up instead.
     * {@code scanAnyway} says the lookup would scan the whole column, so learning the set costs nothing more.
     */
    @FunctionalInterface
    public interface KeySets {
        KeySets NONE = (pin, column, scanAnyway) -> Optional.empty();

        Optional<Mono<Set<String>>> all(TableEntry pin, String column, boolean scanAnyway);
    }

    private final WriteContext ctx;
    private final KeySets keySets;

    public CommittedRows(WriteContext ctx) {
        this(ctx, KeySets.NONE);
    }

    public CommittedRows(WriteContext ctx, KeySets keySets) {
        this.ctx = ctx;
        this.keySets = keySets;
    }

    /** The pinned version, not opened: a scan opens its version itself, so a separate open would be a wasted call. */
    public Mono<TableSnapshot> snapshot(TableEntry pin) {
        return Mono.just(TableSnapshot.pinned(ctx.ref(pin), pin.version(), pin.rowCount()));
    }

    /** Committed rows matching a SQL filter (empty = all), projected to {@code columns} (empty = all). */
    public Flux<Map<String, Object>> where(TableEntry pin, String filter, List<String> columns) {
        ScanRequest request = ScanRequest.all().withColumns(columns);
        ScanRequest filtered = filter.isEmpty() ? request : request.withFilter(filter);
        return snapshot(pin).flatMapMany(snapshot -> ctx.tables().scan(snapshot, filtered))
                .flatMapIterable(RowBatch::rows);
    }

    /**
     * Which of {@code values} some committed row holds in {@code column} (exact either way): one {@code IN} scan
     * per {@link #CHUNK} values, or one scan of the column matched in memory when that is cheaper ({@link Probe#choose}).
     */
    public Mono<Set<String>> existing(TableEntry pin, String column, Collection<String> values) {
        if (values.isEmpty()) {
            return Mono.just(Set.of());
        }
        Probe probe = Probe.choose(pin.rowCount(), values.size());
        // A known set is asked id by id: the wanted ids become a set only for a lookup, which needs one.
        return keySets.all(pin, column, probe == Probe.WHOLE_COLUMN)
                .map(all -> all.map(keys -> found(keys, values)))
                .orElseGet(() -> existing(pin, column, values instanceof Set<String> set ? set : new HashSet<>(values), probe));
    }

    private static Set<String> found(Set<String> keys, Collection<String> values) {
        Set<String> found = new HashSet<>();
        values.forEach(value -> {
            if (keys.contains(value)) found.add(value);
        });
        return found;
    }

    /**
     * True when the kept key sets prove that no committed row at {@code pin} holds any of {@code ids} (so rows with
     * these ids may be appended); false when one is held or nobody knows without a lookup. A table of at most
     * {@link #LEARN_ROWS} rows has its ids learned by one key-only scan, which costs about what the upsert it
     * replaces would spend scanning the same column for the keys; a larger table is never scanned here.
     */
    public Mono<Boolean> provenAbsent(TableEntry pin, Collection<String> ids) {
        if (pin == null) {
            return Mono.just(false);
        }
        boolean learn = pin.rowCount() >= 0 && pin.rowCount() <= LEARN_ROWS;
        return keySets.all(pin, "id", learn)
                .map(all -> all.map(keys -> ids.stream().noneMatch(keys::contains)))
                .orElseGet(() -> Mono.just(false));
    }

    /** {@link #existing} by the given probe (both are exact; tests compare them). */
    Mono<Set<String>> existing(TableEntry pin, String column, Set<String> wanted, Probe probe) {
        if (wanted.isEmpty()) {
            return Mono.just(Set.of());
        }
        if (probe == Probe.WHOLE_COLUMN) {
            return snapshot(pin).flatMap(snapshot -> ctx.tables().keysAmong(snapshot, column, new KeysWanted(wanted)));
        }
        return whereIn(pin, column, wanted, List.of(column)).map(row -> (String) row.get(column))
                .collect(HashSet::new, Set::add);
    }

    /** How {@link #existing} finds the committed values. */
    enum Probe {
        /** {@code IN} filters of at most {@link #CHUNK} values (BTREE-backed where the column is indexed). */
        IN_CHUNKS,
        /** One scan projected to the column, matched against the wanted set in memory. */
        WHOLE_COLUMN;

        /**
         * The whole column when the {@code IN} filters would need more than one scan (a small write keeps its
         * lookups) and the table holds at most {@link #WHOLE_SCAN_ROWS_PER_VALUE} rows per wanted value.
         */
        static Probe choose(long committedRows, int wanted) {
            return wanted > CHUNK && committedRows <= (long) wanted * WHOLE_SCAN_ROWS_PER_VALUE ? WHOLE_COLUMN : IN_CHUNKS;
        }
    }

    /** Committed rows whose {@code column} is one of {@code values}, in chunked {@code IN} filters. */
    public Flux<Map<String, Object>> whereIn(TableEntry pin, String column, Collection<String> values, List<String> columns) {
        if (values.isEmpty()) {
            return Flux.empty();
        }
        List<String> all = new ArrayList<>(values);
        return snapshot(pin).flatMapMany(snapshot -> Flux.range(0, (all.size() + CHUNK - 1) / CHUNK)
                .concatMap(chunk -> ctx.tables().scan(snapshot, ScanRequest.all().withColumns(columns)
                        .withFilter(SqlLiterals.inList(column, all.subList(chunk * CHUNK,
                                Math.min(all.size(), (chunk + 1) * CHUNK)))))))
                .flatMapIterable(RowBatch::rows);
    }
}
